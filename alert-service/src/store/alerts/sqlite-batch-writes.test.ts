import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { AlertsStores, NewAlert } from "../../domain/alerts/ports.js";
import { alertInput, describeAlertsStoresContract } from "./contract.js";
import { describeAlertOverviewContract } from "./overview-contract.js";
import { createSqliteAlertsStores } from "./sqlite-stores.js";

/**
 * Inside a batch the hot writes (a new alert, an event, a resolve) run without a savepoint
 * (`SqliteAlertStore.insertNow`, `applyOpNow`) and undo themselves; these tests hold them to
 * the same contract as outside one, and to the batch's promise: nothing half-written is kept.
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

const at = new Date("2026-11-28T10:00:00.000Z");
const input = (opKey: string, fingerprint?: string): NewAlert => ({
  ...alertInput(1, fingerprint ? { fingerprint } : {}),
  opKey,
});

function open() {
  const db = new Database(":memory:");
  const stores = createSqliteAlertsStores(db);
  // A failing op record, as a full disk or an I/O error would fail it: the statement aborts.
  db.exec(`CREATE TEMP TRIGGER failing_op BEFORE INSERT ON alert_ops WHEN new.op LIKE 'fail%'
    BEGIN SELECT RAISE(ABORT, 'op record refused'); END;`);
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    db,
    stores,
    alerts: () => count("SELECT COUNT(*) AS n FROM alerts"),
    ops: () => count("SELECT COUNT(*) AS n FROM alert_ops"),
    counted: () => count("SELECT COALESCE(SUM(n), 0) AS n FROM alert_counts"),
  };
}

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
