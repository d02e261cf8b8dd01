import { rejectionReason } from "@tocsin/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { newAlert, t0 } from "./sqlite-schema.fixtures.js";
import { createSqliteAlertsStores } from "./sqlite-stores.js";

/**
 * The alert tables on SQLite migrated in place from version 0 (the release before versioning):
 * alerts, ids, iids, op records, outcomes and the rules on them are kept. Versions 2 to 6:
 * sqlite-schema-v2-v6.test.ts.
 */

/** The alert tables as the release before versioning wrote them (`user_version` 0). */
const V0 = `
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

const outcome = (iid: number, action: "created" | "incremented") => ({
  iid,
  title: "Disk full",
  status: "triggered",
  events: 1,
  action,
});

/** A version-0 database: project 1 has iid 1 (resolved) and iid 2 (open) of fingerprint `f`, project 2 has iid 1. */
function v0Database(): Database.Database {
  const db = new Database(":memory:");
  db.exec(V0);
  const alert = db.prepare(
    `INSERT INTO alerts (id, project_id, iid, integration_id, title, severity, status, fingerprint, started_at, payload,
       create_op, created_at, updated_at, events) VALUES (?, ?, ?, 7, 'Disk full', 1, ?, 'f', ?, '{"a":1}', ?, ?, ?, ?)`,
  );
  alert.run(1, 1, 1, 2, t0, "op-1", t0, t0, 1);
  alert.run(2, 1, 2, 0, t0, "op-2", t0 + 1, t0 + 5, 2);
  alert.run(3, 2, 1, 0, t0, "op-3", t0 + 2, t0 + 2, 1);
  const op = db.prepare("INSERT INTO alert_ops (op, alert_id, at) VALUES (?, ?, ?)");
  op.run("op-1", 1, t0);
  op.run("op-2", 2, t0 + 1);
  op.run("op-3", 3, t0 + 2);
  op.run("op-event", 2, t0 + 5);
  const job = db.prepare("INSERT INTO processed_jobs (job_id, outcome, at) VALUES (?, ?, ?)");
  job.run("op-1", JSON.stringify(outcome(1, "created")), t0);
  job.run("op-event", JSON.stringify(outcome(2, "incremented")), t0 + 5);
  job.run("job-without-change", JSON.stringify(outcome(9, "created")), t0);
  db.prepare(
    "INSERT INTO alert_activity (alert_id, key, note, at) VALUES (2, 'op-2:alert', 'logged an alert from **tool**', ?)",
  ).run(t0);
  const counter = db.prepare("INSERT INTO alert_counters (name, value) VALUES (?, ?)");
  counter.run("alert_iid:1", 2);
  counter.run("alert_iid:2", 1);
  counter.run("incident_iid:1", 4);
  return db;
}

describe("alert tables on SQLite: an existing database is migrated in place", () => {
  it("from version 0 keeps alerts, ids, iids, op records, outcomes and the rules on them", async () => {
    const db = v0Database();
    const { alerts, requests, incidents } = createSqliteAlertsStores(db);
    expect(db.pragma("user_version", { simple: true })).toBe(7);
    const columns = (db.prepare("PRAGMA table_info(alerts)").all() as Array<{ name: string }>).map((c) => c.name);
    expect(columns).not.toContain("create_op");
    expect(columns).toContain("acknowledged_at");
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'processed_jobs'").get()).toBeUndefined();
    // Version 4: the list's started_at order is a range of the overview's index; the narrower one is gone.
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'alerts_project_started'").get()).toBeUndefined();
    const plan = db
      .prepare("EXPLAIN QUERY PLAN SELECT * FROM alerts WHERE project_id = 1 ORDER BY started_at DESC, id DESC LIMIT 20")
      .all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join("; ")).toContain("USING INDEX alerts_project_started_counts (project_id=?)");

    expect(await alerts.findByOp(1, "op-1")).toMatchObject({ created: true, alert: { id: 1, iid: 1, status: "resolved" } });
    expect(await alerts.findByOp(1, "op-event")).toMatchObject({ created: false, alert: { id: 2, events: 2 } });
    expect(await requests.startJob("op-1", new Date())).toEqual({ outcome: outcome(1, "created"), firstRun: false });
    expect(await requests.startJob("op-2", new Date())).toEqual({ outcome: undefined, firstRun: false });
    expect(await requests.startJob("job-without-change", new Date())).toEqual({ outcome: outcome(9, "created"), firstRun: true });
    expect(await alerts.activity(2)).toHaveLength(1);

    // The rules still hold on the rebuilt table: one open alert per fingerprint, one alert per op.
    expect(await rejectionReason(alerts.create(newAlert(1, "op-new-f", "f")))).toBe("OPEN_ALERT_EXISTS");
    expect(await rejectionReason(alerts.create(newAlert(1, "op-2")))).toBe("OP_APPLIED");
    expect((await alerts.findOpen(1, "f"))?.id).toBe(2);
    expect(await alerts.registerEvent(2, "op-event", new Date())).toBeUndefined();
    // iids and ids go on from where they were; incident iids keep their counter.
    const next = await alerts.create(newAlert(1, "op-4"));
    expect([next.id, next.iid]).toEqual([4, 3]);
    expect((await alerts.create(newAlert(2, "op-5"))).iid).toBe(2);
    expect((await alerts.create(newAlert(3, "op-6"))).iid).toBe(1);
    const opened = await incidents.openForAlert({
      projectId: 1,
      alertId: 4,
      alertIid: 3,
      title: undefined,
      severity: "high",
      at: new Date(),
    });
    expect(opened.incident.iid).toBe(5);
    const listed = await alerts.list(1, { orderBy: "created_at", sort: "desc", offset: 0, limit: 10 });
    expect(listed.alerts.map((a) => a.iid)).toEqual([3, 2, 1]);
    expect(listed.total).toBe(3);
    expect(listed.alerts[2]?.payload).toEqual({ a: 1 });

    // Opening again changes nothing; the purge drops old op records and outcomes alike.
    createSqliteAlertsStores(db);
    expect(db.pragma("user_version", { simple: true })).toBe(7);
    await requests.purge(new Date(t0 + 10), new Date(t0 + 10));
    expect((await requests.jobOutcomes(["op-1"])).get("op-1")).toBeUndefined();
    expect(await alerts.findByOp(1, "op-4")).toMatchObject({ created: true });
    db.close();
  });

  it("keeps the id sequence of alerts past the highest id still present", async () => {
    const db = v0Database();
    db.prepare("UPDATE sqlite_sequence SET seq = 10 WHERE name = 'alerts'").run();
    const { alerts } = createSqliteAlertsStores(db);
    expect((await alerts.create(newAlert(1, "op-after"))).id).toBe(11);
    db.close();
  });
});
