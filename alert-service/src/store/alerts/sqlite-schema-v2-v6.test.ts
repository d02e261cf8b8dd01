import { rejectionReason } from "@tocsin/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { newAlert, t0 } from "./sqlite-schema.fixtures.js";
import { createSqliteAlertsStores } from "./sqlite-stores.js";

/**
 * The alert tables on SQLite migrated in place from versions 2 to 6 (each built by taking a
 * database of the current layout back): the list's totals, the started_at index, the notes
 * written with an alert, the open fingerprints' look-up, the count of a new alert. Version 0:
 * sqlite-schema-v0.test.ts.
 */

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

describe("alert tables on SQLite: an existing database is migrated in place", () => {
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
});
