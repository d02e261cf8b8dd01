import { rejectionReason } from "@tocsin/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { NewAlert } from "../../domain/alerts/ports.js";
import { createSqliteAlertsStores } from "./sqlite-stores.js";

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

const t0 = Date.parse("2026-11-20T10:00:00.000Z");
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

/** A database of the current layout taken back to version 6's: a new alert counted by a trigger of its insert. */
function asVersion6(db: Database.Database): void {
  db.exec(`CREATE TRIGGER alert_counts_insert AFTER INSERT ON alerts BEGIN
    INSERT INTO alert_counts (project_id, status, n) VALUES (new.project_id, new.status, 1)
      ON CONFLICT (project_id, status) DO UPDATE SET n = n + 1;
  END;`);
  db.pragma("user_version = 6");
}

/**
 * A database of the current layout taken back to version 5's: version 6's, with the one-open rule
 * kept by the partial unique index instead of the open fingerprints' table, its triggers and
 * counter (tests of older versions build their layout from this one).
 */
function asVersion5(db: Database.Database): void {
  asVersion6(db);
  db.exec(`
    DROP TRIGGER alert_fingerprint_closed; DROP TRIGGER alert_fingerprint_reopen_check;
    DROP TRIGGER alert_fingerprint_reopened; DROP TRIGGER alert_fingerprint_deleted;
    DROP TABLE alert_open_fingerprints; DROP TABLE alert_fingerprint_reopens;
    DELETE FROM alert_counters WHERE name = 'fingerprints_merged';
    CREATE UNIQUE INDEX alerts_one_open_per_fingerprint
      ON alerts (project_id, fingerprint) WHERE fingerprint IS NOT NULL AND status <> 2;`);
  db.pragma("user_version = 5");
}

function newAlert(projectId: number, opKey: string, fingerprint?: string): NewAlert {
  const at = new Date(t0 + 60_000);
  return {
    projectId,
    integrationId: 7,
    status: "triggered",
    opKey,
    at,
    alert: {
      title: "CPU hot",
      hosts: [],
      severity: "high",
      startedAt: at.toISOString(),
      source: "tool",
      payload: {},
      fingerprint,
    },
  };
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

  it("from version 2 fills the list's totals from the alerts present, and triggers keep them", async () => {
    const db = new Database(":memory:");
    const { alerts } = createSqliteAlertsStores(db);
    for (let i = 0; i < 5; i++) await alerts.create(newAlert(1, `op-${i}`, `f${i}`));
    await alerts.create(newAlert(2, "op-other"));
    await alerts.setStatus(1, "acknowledged", undefined, new Date());
    asVersion5(db);
    // The layout of version 2: no counts, no triggers.
    db.exec(
      "DROP TRIGGER alert_counts_insert; DROP TRIGGER alert_counts_status; DROP TRIGGER alert_counts_delete; DROP TABLE alert_counts",
    );
    db.pragma("user_version = 2");
    const reopened = createSqliteAlertsStores(db).alerts;
    expect(db.pragma("user_version", { simple: true })).toBe(7);
    const total = async (status?: "triggered" | "acknowledged" | "resolved") =>
      (await reopened.list(1, { status, orderBy: "created_at", sort: "desc", offset: 0, limit: 1 })).total;
    expect([await total(), await total("triggered"), await total("acknowledged")]).toEqual([5, 4, 1]);
    await reopened.create(newAlert(1, "op-new", "g"));
    await reopened.resolve(2, new Date(), "op-resolve", new Date());
    expect([await total(), await total("triggered"), await total("resolved")]).toEqual([6, 4, 1]);
    // A filter the counts do not keep is counted over the alerts (the same answer).
    const searched = await reopened.list(1, { search: "cpu", orderBy: "created_at", sort: "desc", offset: 0, limit: 1 });
    expect(searched.total).toBe(6);
    db.close();
  });

  it("from version 3 drops the started_at index the overview's one covers, and keeps the counts", async () => {
    const db = new Database(":memory:");
    const { alerts } = createSqliteAlertsStores(db);
    for (let i = 0; i < 3; i++) await alerts.create(newAlert(1, `op-${i}`, `f${i}`));
    asVersion5(db);
    // The layout of version 3: the index was there.
    db.exec("CREATE INDEX alerts_project_started ON alerts (project_id, started_at)");
    db.pragma("user_version = 3");
    const reopened = createSqliteAlertsStores(db).alerts;
    expect(db.pragma("user_version", { simple: true })).toBe(7);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'alerts_project_started'").get()).toBeUndefined();
    await reopened.create(newAlert(1, "op-new", "g"));
    const listed = await reopened.list(1, { orderBy: "started_at", sort: "desc", offset: 0, limit: 10 });
    expect([listed.total, listed.alerts.length]).toEqual([4, 4]);
    db.close();
  });

  it("from version 4 adds the notes written with an alert, and still reads the notes of older alerts", async () => {
    const db = new Database(":memory:");
    const { alerts } = createSqliteAlertsStores(db);
    const old = await alerts.create(newAlert(1, "op-old", "f-old"));
    asVersion5(db);
    // The layout of version 4: no notes column; a new alert's notes were rows of alert_activity.
    db.exec("ALTER TABLE alerts DROP COLUMN notes");
    db.prepare(
      "INSERT INTO alert_activity (alert_id, key, note, at) VALUES (?, 'op-old:alert', 'logged an alert from **tool**', ?)",
    ).run(old.id, t0);
    db.pragma("user_version = 4");
    const reopened = createSqliteAlertsStores(db).alerts;
    expect(db.pragma("user_version", { simple: true })).toBe(7);
    await reopened.addActivity(old.id, "later", "changed the status to **Resolved**", new Date(t0 + 1));
    expect((await reopened.activity(old.id)).map((e) => e.note)).toEqual([
      "logged an alert from **tool**",
      "changed the status to **Resolved**",
    ]);
    // A new alert's notes go into its row: alert_activity gets no row for them.
    const rowsBefore = (db.prepare("SELECT COUNT(*) AS n FROM alert_activity").get() as { n: number }).n;
    const created = await reopened.create({
      ...newAlert(1, "op-new", "f-new"),
      notes: [{ key: "op-new:alert", note: "logged an alert from **tool**" }],
    });
    expect((db.prepare("SELECT COUNT(*) AS n FROM alert_activity").get() as { n: number }).n).toBe(rowsBefore);
    expect((await reopened.activity(created.id)).map((e) => [e.note, e.createdAt.getTime()])).toEqual([
      ["logged an alert from **tool**", t0 + 60_000],
    ]);
    db.close();
  });

  it("from version 5 moves the open alerts' fingerprints into the look-up table, and the rule holds", async () => {
    const db = new Database(":memory:");
    const { alerts } = createSqliteAlertsStores(db);
    const resolved = await alerts.create(newAlert(1, "op-1", "f"));
    await alerts.setStatus(resolved.id, "resolved", new Date(t0), new Date(t0));
    const open = await alerts.create(newAlert(1, "op-2", "f"));
    await alerts.create(newAlert(2, "op-3", "f"));
    await alerts.create(newAlert(1, "op-4"));
    asVersion5(db);
    const reopened = createSqliteAlertsStores(db).alerts;
    expect(db.pragma("user_version", { simple: true })).toBe(7);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'alerts_one_open_per_fingerprint'").get()).toBeUndefined();
    expect(db.prepare("SELECT project_id, fingerprint, alert_id FROM alert_open_fingerprints ORDER BY project_id").all()).toEqual(
      [
        { project_id: 1, fingerprint: "f", alert_id: open.id },
        { project_id: 2, fingerprint: "f", alert_id: 3 },
      ],
    );
    expect(db.prepare("SELECT value FROM alert_counters WHERE name = 'fingerprints_merged'").get()).toEqual({ value: 4 });
    expect((await reopened.findOpen(1, "f"))?.id).toBe(open.id);
    expect(await rejectionReason(reopened.create(newAlert(1, "op-5", "f")))).toBe("OPEN_ALERT_EXISTS");
    expect(await rejectionReason(reopened.setStatus(resolved.id, "triggered", undefined, new Date()))).toBe("OPEN_ALERT_EXISTS");
    await reopened.resolve(open.id, new Date(), "op-6", new Date());
    expect(await reopened.findOpen(1, "f")).toBeUndefined();
    expect((await reopened.setStatus(resolved.id, "triggered", undefined, new Date())).status).toBe("triggered");
    expect((await reopened.findOpen(1, "f"))?.id).toBe(resolved.id);
    db.close();
  });

  it("from version 6 counts a new alert with a statement of its own, not a trigger of its insert", async () => {
    const db = new Database(":memory:");
    const { alerts } = createSqliteAlertsStores(db);
    await alerts.create(newAlert(1, "op-1", "f"));
    asVersion6(db);
    const reopened = createSqliteAlertsStores(db);
    expect(db.pragma("user_version", { simple: true })).toBe(7);
    // A trigger on the insert would give every new alert's INSERT a statement journal (V6_TO_V7).
    const insertTriggers = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'alerts' AND sql LIKE '%AFTER INSERT%'")
      .all();
    expect(insertTriggers).toEqual([]);
    const total = async (projectId: number, status?: "triggered" | "resolved") =>
      (await reopened.alerts.list(projectId, { status, orderBy: "created_at", sort: "desc", offset: 0, limit: 1 })).total;
    const created = await reopened.alerts.create(newAlert(1, "op-2", "g"));
    await reopened.alerts.create({ ...newAlert(2, "op-3"), status: "resolved" });
    // In a batch: a new alert, and one whose op was applied already (inserted, then taken back).
    await reopened.batch(async () => {
      await reopened.alerts.create(newAlert(1, "op-4"));
      await expect(reopened.alerts.create(newAlert(1, "op-2"))).rejects.toMatchObject({ reason: "OP_APPLIED" });
    });
    await reopened.alerts.resolve(created.id, new Date(), "op-5", new Date());
    expect([await total(1), await total(1, "triggered"), await total(1, "resolved")]).toEqual([3, 2, 1]);
    expect([await total(2), await total(2, "resolved")]).toEqual([1, 1]);
    const counted = db.prepare("SELECT project_id, status, n FROM alert_counts WHERE n > 0 ORDER BY project_id, status").all();
    const present = db
      .prepare("SELECT project_id, status, COUNT(*) AS n FROM alerts GROUP BY project_id, status ORDER BY 1, 2")
      .all();
    expect(counted).toEqual(present);
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
