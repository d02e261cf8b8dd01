import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { AlertsStores } from "../../domain/alerts/ports.js";
import { alertInput, describeAlertsStoresContract } from "./contract.js";
import { describeAlertOverviewContract } from "./overview-contract.js";
import { at, input, open } from "./sqlite-batch.fixtures.js";
import { createSqliteAlertsStores } from "./sqlite-stores.js";

/**
 * Inside a batch the hot writes (a new alert, an event, a resolve) run without a savepoint
 * (`SqliteAlertStore.insertNow`, `applyOpNow`) and undo themselves; these tests hold them to
 * the same contract as outside one, and to the batch's promise: nothing half-written is kept.
 * The op records a batch writes late (OpRecords): sqlite-batch-op-records.test.ts.
 */

/** The stores with every alert-store call made inside a batch of its own. */
function everyWriteInABatch(stores: AlertsStores): AlertsStores {
  const alerts = new Proxy(stores.alerts, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => stores.batch(() => value.apply(target, args));
    },
  });
  return { ...stores, alerts };
}

const inBatches = async () => {
  const db = new Database(":memory:");
  return { stores: everyWriteInABatch(createSqliteAlertsStores(db)), cleanup: async () => void db.close() };
};
describeAlertsStoresContract("sqlite, each write inside a batch", inBatches);
describeAlertsStoresContract("sqlite, each write inside a batch, open fingerprints merged every 2 alerts", async () => {
  const db = new Database(":memory:");
  return {
    stores: everyWriteInABatch(createSqliteAlertsStores(db, { mergeFingerprintsAt: 2 })),
    cleanup: async () => void db.close(),
  };
});
describeAlertOverviewContract("sqlite, each write inside a batch", inBatches);

/** A promise the test releases: a batch that awaits it keeps its transaction open meanwhile. */
function gate() {
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => {
    release = r;
  });
  return { held, release };
}

describe("sqlite alert writes inside a batch", () => {
  it("an op applied already takes back the alert it inserted, and the batch keeps its other writes", async () => {
    const s = open();
    const first = await s.stores.alerts.create(input("op-1"));
    await s.stores.batch(async () => {
      await s.stores.alerts.create(input("op-2"));
      await expect(s.stores.alerts.create(input("op-1"))).rejects.toMatchObject({ reason: "OP_APPLIED" });
      await s.stores.alerts.create(input("op-3"));
    });
    expect(s.db.inTransaction).toBe(false);
    expect([s.alerts(), s.ops(), s.counted()]).toEqual([3, 3, 3]);
    expect((await s.stores.alerts.findByOp(1, "op-1"))?.alert.id).toBe(first.id);
    expect((await s.stores.alerts.get(1, 3))?.id).toBeGreaterThan(first.id);
  });

  it("an open fingerprint refused leaves nothing, and the batch goes on", async () => {
    const s = open();
    await s.stores.batch(async () => {
      await s.stores.alerts.create(input("op-1", "f"));
      await expect(s.stores.alerts.create(input("op-2", "f"))).rejects.toMatchObject({ reason: "OPEN_ALERT_EXISTS" });
      await s.stores.alerts.create(input("op-3", "g"));
    });
    expect([s.alerts(), s.ops(), s.counted()]).toEqual([2, 2, 2]);
  });

  it.each([
    ["a new alert", (st: AlertsStores) => st.alerts.create(input("fail-new"))],
    ["an event", (st: AlertsStores) => st.alerts.registerEvent(1, "fail-event", at)],
    ["a resolve", (st: AlertsStores) => st.alerts.resolve(1, at, "fail-resolve", at)],
  ])("%s whose op record fails rolls the whole batch back, and the batch fails", async (_, write) => {
    const s = open();
    await s.stores.alerts.create(input("op-0", "kept"));
    const batch = s.stores.batch(async () => {
      await s.stores.alerts.create(input("op-1"));
      await s.stores.alerts.registerEvent(1, "op-2", at);
      await expect(write(s.stores)).rejects.toThrow("op record refused");
      // Written after the rollback: outside any transaction, each write commits by itself.
      await s.stores.requests.recordJob("after", { action: "created", iid: 9 } as never, at);
    });
    await expect(batch).rejects.toThrow("rolled back before its commit");
    expect(s.db.inTransaction).toBe(false);
    // The batch's alert, its event and the failed write are gone; what came before the batch stays.
    expect([s.alerts(), s.counted()]).toEqual([1, 1]);
    expect((await s.stores.alerts.get(1, 1))?.events).toBe(1);
    expect(await s.stores.alerts.findByOp(1, "op-1")).toBeUndefined();
  });

  it("a new alert whose count fails rolls the whole batch back, and the batch fails", async () => {
    const s = open();
    s.db.exec(`CREATE TEMP TRIGGER failing_count BEFORE INSERT ON alert_counts WHEN new.project_id = 2
      BEGIN SELECT RAISE(ABORT, 'count refused'); END;`);
    await s.stores.alerts.create(input("op-0"));
    const batch = s.stores.batch(async () => {
      await s.stores.alerts.create(input("op-1"));
      await expect(s.stores.alerts.create({ ...alertInput(2), opKey: "op-2" })).rejects.toThrow("count refused");
    });
    await expect(batch).rejects.toThrow("rolled back before its commit");
    expect([s.alerts(), s.ops(), s.counted()]).toEqual([1, 1, 1]);
  });

  it("a batch that joins another's transaction settles only after that commit", async () => {
    const s = open();
    const { held, release } = gate();
    const owner = s.stores.batch(async () => {
      await s.stores.alerts.create(input("op-a"));
      await held;
    });
    let joinedSettled = false;
    const joined = s.stores
      .batch(async () => {
        await s.stores.alerts.create(input("op-b"));
        return "b";
      })
      .finally(() => {
        joinedSettled = true;
      });
    // The joiner's own work is done; its writes are in the owner's open transaction.
    await new Promise((r) => setImmediate(r));
    expect(s.db.inTransaction).toBe(true);
    expect(joinedSettled).toBe(false);
    release();
    await expect(owner).resolves.toBeUndefined();
    await expect(joined).resolves.toBe("b");
    expect(s.db.inTransaction).toBe(false);
    expect(s.alerts()).toBe(2);
  });

  it("a batch that joined a transaction lost before its commit fails with it", async () => {
    const s = open();
    const { held, release } = gate();
    const owner = s.stores.batch(async () => {
      await s.stores.alerts.create(input("op-a"));
      await held;
      await s.stores.alerts.create(input("fail-a")).catch(() => undefined);
    });
    const joined = s.stores.batch(async () => {
      await s.stores.alerts.create(input("op-b"));
      return "b";
    });
    await new Promise((r) => setImmediate(r));
    release();
    await expect(owner).rejects.toThrow("rolled back before its commit");
    await expect(joined).rejects.toThrow("rolled back before its commit");
    expect([s.alerts(), s.ops(), s.counted()]).toEqual([0, 0, 0]);
  });

  it("a batch whose transaction was lost neither commits nor rolls back the next batch's", async () => {
    const s = open();
    const a = gate();
    const owner = s.stores.batch(async () => {
      await s.stores.alerts.create(input("op-a"));
      await s.stores.alerts.create(input("fail-a")).catch(() => undefined);
      await a.held;
    });
    await new Promise((r) => setImmediate(r));
    expect(s.db.inTransaction).toBe(false);
    // A batch that starts now begins a transaction of its own.
    const c = gate();
    const next = s.stores.batch(async () => {
      await s.stores.alerts.create(input("op-c"));
      await c.held;
    });
    await new Promise((r) => setImmediate(r));
    a.release();
    await expect(owner).rejects.toThrow("rolled back before its commit");
    expect(s.db.inTransaction).toBe(true);
    c.release();
    await expect(next).resolves.toBeUndefined();
    expect(s.alerts()).toBe(1);
    expect((await s.stores.alerts.findByOp(1, "op-c"))?.created).toBe(true);
  });
});
