import { describe, expect, it } from "vitest";
import { at, input, open } from "./sqlite-batch.fixtures.js";

/**
 * Inside a batch an op record waits (OpRecords): a new alert's record and its job's outcome are
 * one write, a record is written before the connection reads alert_ops, and a record that fails,
 * at the commit, when a read writes it or with its outcome, rolls the whole batch back. The hot
 * writes themselves inside a batch: sqlite-batch-alert-writes.test.ts.
 */

describe("op records inside a batch (OpRecords)", () => {
  const outcome = { iid: 1, title: "t", status: "triggered", events: 1, action: "created" } as const;
  /** `open()` with every write of `alert_ops` counted, inserts and updates apart. */
  function counted() {
    const s = open();
    s.db.exec(`CREATE TEMP TABLE op_writes (kind TEXT);
      CREATE TEMP TRIGGER op_inserted AFTER INSERT ON alert_ops BEGIN INSERT INTO op_writes VALUES ('insert'); END;
      CREATE TEMP TRIGGER op_updated AFTER UPDATE ON alert_ops BEGIN INSERT INTO op_writes VALUES ('update'); END;`);
    const writes = (kind: string) =>
      (s.db.prepare("SELECT COUNT(*) AS n FROM op_writes WHERE kind = ?").get(kind) as { n: number }).n;
    const row = (op: string) =>
      s.db.prepare("SELECT alert_id, created, outcome FROM alert_ops WHERE op = ?").get(op) as
        | { alert_id: number | null; created: number; outcome: string | null }
        | undefined;
    return { ...s, writes, row };
  }

  it("a new alert's record and its job's outcome are one write", async () => {
    const s = counted();
    await s.stores.batch(async () => {
      expect((await s.stores.requests.startJob("op-1", at)).firstRun).toBe(true);
      const alert = await s.stores.alerts.create(input("op-1"));
      await s.stores.requests.recordJob("op-1", { ...outcome, iid: alert.iid }, at);
    });
    expect([s.writes("insert"), s.writes("update")]).toEqual([1, 0]);
    expect(s.row("op-1")).toMatchObject({ alert_id: 1, created: 1 });
    expect(JSON.parse(s.row("op-1")?.outcome ?? "null")).toEqual(outcome);
    // Done: run again, the job finds its outcome.
    expect(await s.stores.requests.startJob("op-1", at)).toEqual({ outcome, firstRun: false });
  });

  it("an event's record waits for the outcome too, and the job's look-up of its op reads no row", async () => {
    const s = counted();
    await s.stores.alerts.create(input("op-0", "f"));
    await s.stores.batch(async () => {
      await s.stores.requests.startJob("op-1", at);
      expect((await s.stores.alerts.registerEvent(1, "op-1", at))?.events).toBe(2);
      await s.stores.requests.recordJob("op-1", { ...outcome, events: 2, action: "incremented" }, at);
    });
    expect([s.writes("insert"), s.writes("update")]).toEqual([2, 0]);
    expect(s.row("op-1")).toMatchObject({ alert_id: 1, created: 0 });
  });

  it("a change whose job records no outcome in the batch is recorded at its commit, without one", async () => {
    const s = counted();
    await s.stores.batch(async () => {
      await s.stores.requests.startJob("op-1", at);
      await s.stores.alerts.create(input("op-1"));
    });
    expect(s.row("op-1")).toEqual({ alert_id: 1, created: 1, outcome: null });
    // Its outcome comes later (after the jobs it asked for were enqueued), in a batch of its own.
    await s.stores.batch(() => s.stores.requests.recordJob("op-1", outcome, at));
    expect(JSON.parse(s.row("op-1")?.outcome ?? "null")).toEqual(outcome);
    // A re-run before that outcome would find the change, not make another.
    expect((await s.stores.requests.startJob("op-1", at)).firstRun).toBe(false);
  });

  it("a record that waits is written before the connection reads alert_ops: the same op twice in a batch is one alert", async () => {
    const s = counted();
    await s.stores.batch(async () => {
      await s.stores.requests.startJob("op-1", at);
      const first = await s.stores.alerts.create(input("op-1"));
      expect((await s.stores.alerts.findByOp(1, "op-1"))?.alert.id).toBe(first.id);
      expect((await s.stores.requests.startJob("op-1", at)).firstRun).toBe(false);
      await expect(s.stores.alerts.create(input("op-1"))).rejects.toMatchObject({ reason: "OP_APPLIED" });
    });
    expect([s.alerts(), s.ops()]).toEqual([1, 1]);
  });

  it("a record that fails at the commit rolls the whole batch back", async () => {
    const s = counted();
    const batch = s.stores.batch(async () => {
      await s.stores.alerts.create(input("op-a"));
      await s.stores.requests.startJob("fail-1", at);
      await s.stores.alerts.create(input("fail-1"));
    });
    await expect(batch).rejects.toThrow("op record refused");
    expect(s.db.inTransaction).toBe(false);
    expect([s.alerts(), s.ops(), s.counted()]).toEqual([0, 0, 0]);
  });

  it("a record that fails when a read writes it rolls the whole batch back, though the caller goes on", async () => {
    const s = counted();
    const batch = s.stores.batch(async () => {
      await s.stores.alerts.create(input("op-a"));
      await s.stores.requests.startJob("fail-1", at);
      await s.stores.alerts.create(input("fail-1"));
      // The next job's start writes what waits first; processing would stop the batch here.
      await expect(s.stores.requests.startJob("op-b", at)).rejects.toThrow("op record refused");
    });
    await expect(batch).rejects.toThrow("rolled back before its commit");
    expect([s.alerts(), s.ops(), s.counted()]).toEqual([0, 0, 0]);
  });

  it("a record that fails with its outcome rolls the whole batch back, and the batch fails", async () => {
    const s = counted();
    const batch = s.stores.batch(async () => {
      await s.stores.alerts.create(input("op-a"));
      await s.stores.requests.startJob("fail-1", at);
      await s.stores.alerts.create(input("fail-1"));
      await expect(s.stores.requests.recordJob("fail-1", outcome, at)).rejects.toThrow("op record refused");
    });
    await expect(batch).rejects.toThrow("rolled back before its commit");
    expect([s.alerts(), s.ops(), s.counted()]).toEqual([0, 0, 0]);
    // The next batch begins afresh: nothing that waited in the lost one is written by it.
    await s.stores.batch(async () => {
      await s.stores.requests.startJob("op-b", at);
      await s.stores.alerts.create(input("op-b"));
      await s.stores.requests.recordJob("op-b", outcome, at);
    });
    expect([s.alerts(), s.ops()]).toEqual([1, 1]);
  });
});
