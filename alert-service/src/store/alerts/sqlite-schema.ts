import { prepared } from "@tocsin/store";
import type { Database } from "better-sqlite3";
import { V5_TO_V6 } from "./sqlite-schema-open-fingerprints.js";

/**
 * Version of the alert tables' layout in `PRAGMA user_version` of the database file (the alert
 * tables own it: the integration and mail tables beside them in `alert.db` are not versioned).
 * 0: a database from before versioning (layout `V0_TO_V1` starts from); 1: the layout below;
 * 2: `alerts.acknowledged_at` (`V1_TO_V2`); 3: `alert_counts` (`V2_TO_V3`); 4: without
 * `alerts_project_started` (`V3_TO_V4`); 5: `alerts.notes` (`V4_TO_V5`); 6: the open fingerprints'
 * look-up table instead of a unique index (`V5_TO_V6`); 7: a new alert counted by the store, not
 * by a trigger (`V6_TO_V7`).
 */
const SCHEMA_VERSION = 7;

/**
 * The alert list's columns and indexes. The one-open-alert rule (status 2 = resolved) is kept by
 * `alert_open_fingerprints` and the store (`V5_TO_V6`, sqlite-open-fingerprints.ts). The `alerts_project_*` indexes serve the
 * alerts list: its default order (`created_at`, then `id`, the rowid every index ends with), the
 * status filter, and the `severity` order (severity's direction is inverted against `id`, hence
 * `id DESC`); the `started_at` order is served by `alerts_project_started_counts` (`V1_TO_V2`),
 * whose first columns are the same. Other orders (`updated_at`, `ended_at`, `events`, `status`)
 * sort the project's rows: they are rare, and every index costs each alert write.
 */
const alertsTable = (name: string) => `
CREATE TABLE ${name} (
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
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project_id, iid)
);`;
const ALERTS_INDEXES = `
CREATE INDEX alerts_project_created ON alerts (project_id, created_at);
CREATE INDEX alerts_project_status_created ON alerts (project_id, status, created_at);
CREATE INDEX alerts_project_severity ON alerts (project_id, severity, id DESC);
`;

/**
 * One record per job (op = job id, a random UUID): the alert its change created (`created` 1) or
 * changed, and its outcome once it finished. A WITHOUT ROWID table is one B-tree keyed by the op;
 * `at` (when the change, or a bare outcome, was written) serves the purge.
 */
const OPS = `
CREATE TABLE alert_ops (
  op TEXT PRIMARY KEY,
  alert_id INTEGER,
  created INTEGER NOT NULL DEFAULT 0,
  outcome TEXT,
  at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX alert_ops_at ON alert_ops (at);
`;

const OTHERS = `
CREATE TABLE IF NOT EXISTS alert_counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
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
`;

const ALERT_COLUMNS = `id, project_id, iid, integration_id, title, description, severity, status, service, monitoring_tool,
  hosts, events, fingerprint, started_at, ended_at, environment_name, incident_iid, payload, created_at, updated_at`;

/**
 * Version 0 → 1 (issue 9: fewer B-trees written per alert). `alerts.create_op` (a unique index
 * beside `alert_ops`) becomes `alert_ops.created`; `processed_jobs` becomes `alert_ops.outcome`;
 * `alert_ops` becomes WITHOUT ROWID; alert iids come from `MAX(iid) + 1` of the project (alerts
 * are never deleted, so that is the counter's value), and the `alert_iid:*` counters go.
 * `alerts` is rebuilt (SQLite drops no UNIQUE column in place), keeping ids and the AUTOINCREMENT
 * sequence.
 */
const V0_TO_V1 = `
CREATE TABLE alert_ops_v1 (
  op TEXT PRIMARY KEY,
  alert_id INTEGER,
  created INTEGER NOT NULL DEFAULT 0,
  outcome TEXT,
  at INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO alert_ops_v1 (op, alert_id, created, at)
  SELECT o.op, o.alert_id, EXISTS (SELECT 1 FROM alerts a WHERE a.create_op = o.op), o.at FROM alert_ops o;
INSERT INTO alert_ops_v1 (op, outcome, at) SELECT job_id, outcome, at FROM processed_jobs WHERE true
  ON CONFLICT (op) DO UPDATE SET outcome = excluded.outcome;
DROP TABLE alert_ops;
DROP TABLE processed_jobs;
ALTER TABLE alert_ops_v1 RENAME TO alert_ops;
CREATE INDEX alert_ops_at ON alert_ops (at);
CREATE TEMP TABLE alerts_sequence AS SELECT seq FROM sqlite_sequence WHERE name = 'alerts';
${alertsTable("alerts_v1")}
INSERT INTO alerts_v1 (${ALERT_COLUMNS}) SELECT ${ALERT_COLUMNS} FROM alerts;
DROP TABLE alerts;
ALTER TABLE alerts_v1 RENAME TO alerts;
${ALERTS_INDEXES}
INSERT INTO sqlite_sequence (name, seq) SELECT 'alerts', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'alerts');
UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT seq FROM temp.alerts_sequence), 0)) WHERE name = 'alerts';
DROP TABLE temp.alerts_sequence;
DELETE FROM alert_counters WHERE name LIKE 'alert_iid:%';
`;

/**
 * Version 1 → 2 (issue 26, the overview: docs/overview-api.md). `acknowledged_at`: when an alert
 * was first acknowledged (epoch ms, NULL = never; alerts acknowledged before count as never).
 * `alerts_project_started_counts` covers the overview's per-day pass over the last 30 days (no
 * row is read for it); `alerts_open_by_severity` holds open alerts only (partial: resolved and
 * ignored alerts, the bulk, are not in it), so the dashboard's counts read no rows either.
 */
const V1_TO_V2 = `
ALTER TABLE alerts ADD COLUMN acknowledged_at INTEGER;
CREATE INDEX alerts_project_started_counts ON alerts (project_id, started_at, severity, status, ended_at, acknowledged_at);
CREATE INDEX alerts_open_by_severity ON alerts (project_id, status, severity) WHERE status IN (0, 1);
`;

/**
 * Version 2 → 3 (issue 25 item 5: the alert list's first page in flat time). `alert_counts`: the
 * number of alerts per project and status, kept in the transaction that writes the alert (by
 * triggers; a new alert's count is the store's own statement since version 7, `V6_TO_V7`), so
 * that the list's total without a filter (or with the status filter alone) is a read of at most
 * 4 rows instead of a count over the project's index range (≈ 50 ms at 1,000,000 alerts). Filled
 * from the alerts present; alerts are never deleted, but a delete is counted too.
 */
const V2_TO_V3 = `
CREATE TABLE alert_counts (
  project_id INTEGER NOT NULL,
  status INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (project_id, status)
) WITHOUT ROWID;
INSERT INTO alert_counts (project_id, status, n) SELECT project_id, status, COUNT(*) FROM alerts GROUP BY project_id, status;
CREATE TRIGGER alert_counts_insert AFTER INSERT ON alerts BEGIN
  INSERT INTO alert_counts (project_id, status, n) VALUES (new.project_id, new.status, 1)
    ON CONFLICT (project_id, status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER alert_counts_status AFTER UPDATE OF status ON alerts WHEN old.status <> new.status BEGIN
  UPDATE alert_counts SET n = n - 1 WHERE project_id = old.project_id AND status = old.status;
  INSERT INTO alert_counts (project_id, status, n) VALUES (new.project_id, new.status, 1)
    ON CONFLICT (project_id, status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER alert_counts_delete AFTER DELETE ON alerts BEGIN
  UPDATE alert_counts SET n = n - 1 WHERE project_id = old.project_id AND status = old.status;
END;
`;

/**
 * Version 3 → 4 (issue 25 item 2: fewer B-trees written per new alert). `alerts_project_started
 * (project_id, started_at)` is a prefix of `alerts_project_started_counts`, which now serves the
 * list's `started_at` order and the overview's ranges alone: one index fewer on every insert.
 * Databases created since version 1 without it (this layout) have nothing to drop.
 */
const V3_TO_V4 = "DROP INDEX IF EXISTS alerts_project_started;";

/**
 * Version 4 → 5 (issue 25 item 2: fewer statements per new alert). `alerts.notes`: the activity
 * notes written with the alert (JSON `[{ key, note }]`, dated by `created_at`; NULL for none and
 * for alerts from before), so that a new alert's "logged an alert" note is no row of
 * `alert_activity` and entry of its unique index of its own (`bench/wal-frames.mjs`: 0.21 of the
 * 2.56 WAL pages of a new alert). Later notes stay rows of `alert_activity`; reading merges both,
 * as MongoDB mode's alert documents do.
 */
const V4_TO_V5 = "ALTER TABLE alerts ADD COLUMN notes TEXT;";

/**
 * Version 6 → 7 (issue 25 items 1 and 2: a cheaper new alert). A statement that fires a trigger
 * may fail after part of its writes, so SQLite gives it a statement journal (a copy of what the
 * statement changes, to undo it alone), as it gives a savepoint.
 * The insert's `alert_counts_insert` made a new alert's `INSERT` about a third dearer (a
 * throw-away loop of storm alerts in transactions of 256: 25.8–27.3 µs of CPU per insert with
 * the trigger, 17.8–19.8 without it, the count's own statement included). The store now counts a
 * new alert with a statement of its own in the same transaction (`COUNT_NEW_ALERT`,
 * sqlite-alert-store.ts); status changes and deletes are still counted by their triggers (rarer
 * writes, and each already fires others).
 */
const V6_TO_V7 = "DROP TRIGGER IF EXISTS alert_counts_insert;";

/**
 * Creates the alert tables, or brings an existing database to the current layout in place
 * (one IMMEDIATE transaction: another connection opening the file meanwhile waits, then finds
 * the new version and does nothing).
 */
export function migrateAlertsSchema(db: Database): void {
  const version = () => db.pragma("user_version", { simple: true }) as number;
  if (version() >= SCHEMA_VERSION) return;
  db.transaction(() => {
    if (version() >= SCHEMA_VERSION) return;
    const existing = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alerts'").get();
    db.exec(OTHERS);
    if (!existing) db.exec(alertsTable("alerts") + ALERTS_INDEXES + OPS);
    else if (version() < 1) db.exec(V0_TO_V1);
    if (version() < 2) db.exec(V1_TO_V2);
    if (version() < 3) db.exec(V2_TO_V3);
    db.exec(V3_TO_V4);
    // Added unless there (a file that claims an older version but has the column: nothing to add).
    const columns = db.prepare("PRAGMA table_info(alerts)").all() as Array<{ name: string }>;
    if (version() < 5 && !columns.some((c) => c.name === "notes")) db.exec(V4_TO_V5);
    if (version() < 6) db.exec(V5_TO_V6);
    db.exec(V6_TO_V7);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

/** Next value of a named counter, inside the caller's transaction. */
export function nextCounter(db: Database, name: string): number {
  const row = prepared(
    db,
    "INSERT INTO alert_counters (name, value) VALUES (?, 1) ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value",
  ).get(name) as { value: number };
  return row.value;
}
