import { prepared } from "@tocsin/store";
import type { Database } from "better-sqlite3";

/**
 * Tables of the alert data. The one-open-alert rule is the partial unique index
 * `alerts_one_open_per_fingerprint` (status 2 = resolved). The `alerts_project_*` indexes serve the
 * alerts list: its default order (`created_at`, then `id`, the rowid every index ends with), the
 * status filter, and the `started_at` and `severity` orders (severity's direction is inverted
 * against `id`, hence `id DESC`). Other orders (`updated_at`, `ended_at`, `events`, `status`)
 * sort the project's rows: they are rare, and every index costs each alert write.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS alert_counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS alerts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL,
  iid INTEGER NOT NULL,
  integration_id INTEGER NOT NULL,
  title TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  severity INTEGER NOT NULL,
  status INTEGER NOT NULL,
  service TEXT NOT NULL DEFAULT '',
  monitoring_tool TEXT NOT NULL DEFAULT '',
  hosts TEXT NOT NULL DEFAULT '[]',
  events INTEGER NOT NULL DEFAULT 1,
  fingerprint TEXT,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  environment_name TEXT NOT NULL DEFAULT '',
  incident_iid INTEGER NOT NULL DEFAULT 0,
  payload TEXT NOT NULL,
  create_op TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project_id, iid)
);
CREATE UNIQUE INDEX IF NOT EXISTS alerts_one_open_per_fingerprint
  ON alerts (project_id, fingerprint) WHERE fingerprint IS NOT NULL AND status <> 2;
CREATE INDEX IF NOT EXISTS alerts_project_created ON alerts (project_id, created_at);
CREATE INDEX IF NOT EXISTS alerts_project_status_created ON alerts (project_id, status, created_at);
CREATE INDEX IF NOT EXISTS alerts_project_started ON alerts (project_id, started_at);
CREATE INDEX IF NOT EXISTS alerts_project_severity ON alerts (project_id, severity, id DESC);
CREATE TABLE IF NOT EXISTS alert_ops (
  op TEXT PRIMARY KEY,
  alert_id INTEGER NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS alert_ops_at ON alert_ops (at);
CREATE TABLE IF NOT EXISTS alert_activity (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  alert_id INTEGER NOT NULL,
  key TEXT NOT NULL,
  note TEXT NOT NULL,
  at INTEGER NOT NULL,
  UNIQUE (alert_id, key)
);
CREATE TABLE IF NOT EXISTS incidents (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL,
  iid INTEGER NOT NULL,
  alert_id INTEGER NOT NULL UNIQUE,
  alert_iid INTEGER NOT NULL,
  title TEXT NOT NULL,
  severity INTEGER NOT NULL,
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  closed_at INTEGER,
  UNIQUE (project_id, iid)
);
CREATE TABLE IF NOT EXISTS alert_settings (
  project_id INTEGER PRIMARY KEY,
  create_incident INTEGER NOT NULL,
  auto_close_incident INTEGER NOT NULL,
  send_email INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ingest_idempotency (
  integration_id INTEGER NOT NULL,
  key TEXT NOT NULL,
  answer TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (integration_id, key)
);
CREATE TABLE IF NOT EXISTS processed_jobs (
  job_id TEXT PRIMARY KEY,
  outcome TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS processed_jobs_at ON processed_jobs (at);
`;

export function migrateAlertsSchema(db: Database): void {
  db.exec(SCHEMA);
}

/** Next value of a named counter, inside the caller's transaction. */
export function nextCounter(db: Database, name: string): number {
  const row = prepared(
    db,
    "INSERT INTO alert_counters (name, value) VALUES (?, 1) ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value",
  ).get(name) as { value: number };
  return row.value;
}

export function isUniqueViolation(err: unknown, needle?: string): boolean {
  const e = err as { code?: string; message?: string };
  return (
    (e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY") &&
    (!needle || !!e.message?.includes(needle))
  );
}
