import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { rejectionReason } from "@tocsin/testing";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { NewAlert } from "../../domain/alerts/ports.js";
import { alertInput } from "./contract.js";
import { createSqliteAlertsStores } from "./sqlite-stores.js";

/**
 * The one-open-alert rule's look-up (schema version 6, sqlite-open-fingerprints.ts) beyond the
 * stores' contract (which runs with merges at every alert and with none): several connections on
 * one file, a merge rolled back with its transaction, a store opened again.
 */

const at = new Date("2026-11-29T10:00:00Z");
/** A new alert of `fingerprint` (the stores' contract's builder), resolved when said. */
const newAlert = (projectId: number, fingerprint: string, status: "triggered" | "resolved" = "triggered"): NewAlert =>
  alertInput(projectId, { fingerprint, ...(status === "resolved" ? { endedAt: at.toISOString() } : {}) }, status);

const merged = (db: Database.Database) =>
  (db.prepare("SELECT value FROM alert_counters WHERE name = 'fingerprints_merged'").get() as { value: number }).value;
const table = (db: Database.Database) =>
  db.prepare("SELECT fingerprint, alert_id AS id FROM alert_open_fingerprints ORDER BY project_id, fingerprint").all();

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `count` connections to one new file, in WAL mode (as the threads of alert-service have them). */
function connections(count: number): Database.Database[] {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-fingerprints-"));
  dirs.push(dir);
  return Array.from({ length: count }, () => {
    const db = new Database(join(dir, "alert.db"));
    db.pragma("journal_mode = WAL");
    return db;
  });
}

describe("open fingerprints on SQLite", () => {
  it("merges every `mergeAt` alerts, in key order, only the open ones, through the rows' id range", async () => {
    const db = new Database(":memory:");
    const { alerts } = createSqliteAlertsStores(db, { mergeFingerprintsAt: 4 });
    await alerts.create(newAlert(1, "d"));
    await alerts.create(newAlert(1, "b", "resolved"));
    await alerts.create(newAlert(1, "c"));
    expect([merged(db), table(db)]).toEqual([0, []]);
    await alerts.create(newAlert(1, "a"));
    expect(merged(db)).toBe(4);
    expect(table(db)).toEqual([
      { fingerprint: "a", id: 4 },
      { fingerprint: "c", id: 3 },
      { fingerprint: "d", id: 1 },
    ]);
    const e = await alerts.create(newAlert(1, "e"));
    expect(merged(db)).toBe(4);
    expect((await alerts.findOpen(1, "e"))?.id).toBe(e.id);
    expect((await alerts.findOpen(1, "d"))?.id).toBe(1);
    expect(await alerts.findOpen(1, "b")).toBeUndefined();
    const plan = db
      .prepare(
        "EXPLAIN QUERY PLAN SELECT project_id, fingerprint, id FROM alerts NOT INDEXED WHERE id > 1 AND id <= 9 AND fingerprint IS NOT NULL AND status <> 2",
      )
      .all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join("; ")).toContain("USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)");
    db.close();
  });

  it("counts alerts without a fingerprint or created resolved towards the bound", async () => {
    const db = new Database(":memory:");
    const { alerts } = createSqliteAlertsStores(db, { mergeFingerprintsAt: 3 });
    const bare = () => alertInput(1);
    await alerts.create(bare());
    await alerts.create(newAlert(1, "r", "resolved"));
    expect(merged(db)).toBe(0);
    await alerts.create(bare());
    expect([merged(db), table(db)]).toEqual([3, []]);
    db.close();
  });

  it("sees the alerts another connection wrote, pending or merged, and keeps the rule across connections", async () => {
    const [one, two] = connections(2) as [Database.Database, Database.Database];
    const a = createSqliteAlertsStores(one, { mergeFingerprintsAt: 3 }).alerts;
    const b = createSqliteAlertsStores(two, { mergeFingerprintsAt: 3 }).alerts;
    const first = await a.create(newAlert(1, "f"));
    // Pending (not merged yet): found through the rows the other connection reads.
    expect((await b.findOpen(1, "f"))?.id).toBe(first.id);
    expect(await rejectionReason(b.create(newAlert(1, "f")))).toBe("OPEN_ALERT_EXISTS");
    await b.setStatus(first.id, "resolved", at, at);
    expect(await a.findOpen(1, "f")).toBeUndefined();
    const second = await a.create(newAlert(1, "f"));
    // A reopen while a pending alert of the fingerprint is open: refused by the trigger's scan.
    expect(await rejectionReason(b.setStatus(first.id, "triggered", undefined, at))).toBe("OPEN_ALERT_EXISTS");
    // The third alert merges (on connection b): a sees the counter move and the table.
    await b.create(newAlert(1, "g"));
    expect(merged(one)).toBe(3);
    expect((await a.findOpen(1, "f"))?.id).toBe(second.id);
    expect(await rejectionReason(a.create(newAlert(1, "g")))).toBe("OPEN_ALERT_EXISTS");
    await a.resolve(second.id, at, "op-resolve", at);
    expect((await b.setStatus(first.id, "acknowledged", undefined, at)).status).toBe("acknowledged");
    expect((await a.findOpen(1, "f"))?.id).toBe(first.id);
    one.close();
    two.close();
  });

  it("hears of a merged alert reopened on another connection, after its filter was built without it", async () => {
    const [one, two, three] = connections(3) as [Database.Database, Database.Database, Database.Database];
    const first = createSqliteAlertsStores(one, { mergeFingerprintsAt: 2 }).alerts;
    const x = await first.create(newAlert(1, "x"));
    await first.create(newAlert(1, "y"));
    expect(table(one)).toHaveLength(2);
    await first.setStatus(x.id, "resolved", at, at);
    // A store opened now builds its filter from a table without x (at its first insert).
    const later = createSqliteAlertsStores(three, { mergeFingerprintsAt: 1000 }).alerts;
    await later.create(newAlert(1, "z"));
    const other = createSqliteAlertsStores(two).alerts;
    expect((await other.setStatus(x.id, "triggered", undefined, at)).status).toBe("triggered");
    expect(two.prepare("SELECT fingerprint FROM alert_fingerprint_reopens").all()).toEqual([{ fingerprint: "x" }]);
    expect((await later.findOpen(1, "x"))?.id).toBe(x.id);
    expect(await rejectionReason(later.create(newAlert(1, "x")))).toBe("OPEN_ALERT_EXISTS");
    for (const db of [one, two, three]) db.close();
  });

  it("forgets a merge rolled back with its transaction, and an insert rolled back", async () => {
    const db = new Database(":memory:");
    const { alerts } = createSqliteAlertsStores(db, { mergeFingerprintsAt: 2 });
    db.exec("BEGIN IMMEDIATE");
    await alerts.create(newAlert(1, "x"));
    await alerts.create(newAlert(1, "y"));
    expect(merged(db)).toBe(2);
    db.exec("ROLLBACK");
    expect([merged(db), table(db)]).toEqual([0, []]);
    expect(await alerts.findOpen(1, "x")).toBeUndefined();
    expect(await alerts.findOpen(1, "y")).toBeUndefined();
    // The ids are used again, by alerts of other fingerprints: the old hints do not match them.
    const z = await alerts.create(newAlert(1, "z"));
    expect(z.id).toBe(1);
    expect(await alerts.findOpen(1, "x")).toBeUndefined();
    expect((await alerts.create(newAlert(1, "x"))).id).toBe(2);
    expect(table(db)).toEqual([
      { fingerprint: "x", id: 2 },
      { fingerprint: "z", id: 1 },
    ]);
    db.close();
  });

  it("catches up once in a batch's write transaction, and again in the next", async () => {
    const [one, two] = connections(2) as [Database.Database, Database.Database];
    const statements: string[] = [];
    const watched = new Database(join(dirname(one.name), "alert.db"), { verbose: (sql) => statements.push(String(sql)) });
    const stores = createSqliteAlertsStores(watched);
    const other = createSqliteAlertsStores(two).alerts;
    const reads = () => statements.filter((sql) => sql === "PRAGMA data_version" || sql.includes("FROM alert_counters")).length;
    statements.length = 0; // the schema's own reads when the stores were made
    await stores.batch(async () => {
      for (const f of ["a", "b", "c", "d"]) {
        expect(await stores.alerts.findOpen(1, f)).toBeUndefined();
        await stores.alerts.create(newAlert(1, f));
      }
    });
    // Eight look-ups (a find and the insert's check per alert), one catch-up: the counter and data_version once each.
    expect(reads()).toBe(2);
    // Another connection commits between two batches: the next batch catches up and sees it.
    const n = await other.create(newAlert(1, "n"));
    await stores.batch(async () => {
      expect((await stores.alerts.findOpen(1, "n"))?.id).toBe(n.id);
      expect(await rejectionReason(stores.alerts.create(newAlert(1, "n")))).toBe("OPEN_ALERT_EXISTS");
    });
    expect(reads()).toBe(4);
    for (const db of [one, two, watched]) db.close();
  });

  it.each(["an insert", "a look-up"])(
    "drops the hold when the batch's transaction is rolled back: %s after it looks again",
    async (next) => {
      const [one, two] = connections(2) as [Database.Database, Database.Database];
      const stores = createSqliteAlertsStores(one);
      const other = createSqliteAlertsStores(two).alerts;
      let seen: string | undefined;
      const batch = stores.batch(async () => {
        // A miss, caught up under the batch's write lock...
        expect(await stores.alerts.findOpen(1, "m")).toBeUndefined();
        // ...which a rollback ends (as a failed write's `rollBackEnclosing`, or SQLite after an I/O error, does).
        one.exec("ROLLBACK");
        // Without the lock, another connection commits an open alert of the fingerprint.
        const m = await other.create(newAlert(1, "m"));
        // An insert (in a transaction of its own) or a look-up must not trust the miss.
        seen =
          next === "an insert"
            ? await rejectionReason(stores.alerts.create(newAlert(1, "m")))
            : (await stores.alerts.findOpen(1, "m"))?.id === m.id
              ? "found"
              : "missed";
      });
      // The batch reports its transaction lost (what ran in it was not kept).
      expect(await rejectionReason(batch)).toContain("rolled back before its commit");
      expect(seen).toBe(next === "an insert" ? "OPEN_ALERT_EXISTS" : "found");
      expect(one.prepare("SELECT COUNT(*) AS n FROM alerts WHERE fingerprint = 'm'").get()).toEqual({ n: 1 });
      one.close();
      two.close();
    },
  );

  it("shares one look-up between the stores of a connection", async () => {
    const db = new Database(":memory:");
    const one = createSqliteAlertsStores(db).alerts;
    const two = createSqliteAlertsStores(db).alerts;
    await two.findOpen(1, "s");
    const s = await one.create(newAlert(1, "s"));
    expect((await two.findOpen(1, "s"))?.id).toBe(s.id);
    expect(await rejectionReason(two.create(newAlert(1, "s")))).toBe("OPEN_ALERT_EXISTS");
    db.close();
  });

  it("finds the pending alerts again when the file is opened again", async () => {
    const [first, second] = connections(2) as [Database.Database, Database.Database];
    const before = createSqliteAlertsStores(first).alerts;
    const created = [];
    for (const f of ["p", "q", "r"]) created.push(await before.create(newAlert(1, f)));
    first.close();
    const after = createSqliteAlertsStores(second).alerts;
    expect(await Promise.all(["p", "q", "r"].map(async (f) => (await after.findOpen(1, f))?.id))).toEqual(
      created.map((c) => c.id),
    );
    expect(await rejectionReason(after.create(newAlert(1, "q")))).toBe("OPEN_ALERT_EXISTS");
    expect(await after.findOpen(2, "q")).toBeUndefined();
    second.close();
  });
});
