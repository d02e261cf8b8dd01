import { prepared } from "@tocsin/store";
import type { Database } from "better-sqlite3";
import type { AlertsStores } from "../../domain/alerts/ports.js";
import { SqliteAlertOverview } from "./sqlite-alert-overview.js";
import { SqliteAlertStore } from "./sqlite-alert-store.js";
import { SqliteIncidentStore, SqliteRequestLog } from "./sqlite-incident-store.js";
import { OpRecords } from "./sqlite-op-records.js";
import { OpenFingerprints } from "./sqlite-open-fingerprints.js";
import { migrateAlertsSchema } from "./sqlite-schema.js";

/** Per connection: the batch transaction open on it, settled when its commit kept it (or it was lost). */
const openBatches = new WeakMap<Database, Promise<void>>();

/**
 * Runs `fn` inside one transaction of `db`, committed when it settles (see `AlertsStores.batch`).
 * Each write stays atomic: the stores' own transactions inside it become savepoints
 * (better-sqlite3 nests them), and the hot writes (a new alert, an event, a resolve) undo
 * themselves without one (`SqliteAlertStore`). Nothing `fn` did is rolled back when it fails.
 *
 * A batch that starts while another's transaction is open on this connection (lanes whose
 * batches overlap their waits) joins it, and returns only once that transaction is committed:
 * its writes are kept by that commit, and its jobs must not be reported done before.
 * When the transaction is gone before its commit (a write rolled it back rather than keep a
 * change half-written, or SQLite did on an I/O error or a full disk), every batch in it fails:
 * what ran in it was not kept.
 */
async function inOneTransaction<T>(
  db: Database,
  fingerprints: OpenFingerprints,
  ops: OpRecords,
  fn: () => Promise<T>,
): Promise<T> {
  if (db.inTransaction) {
    const joined = openBatches.get(db);
    const result = await fn();
    await joined;
    return result;
  }
  let settle: (lost?: Error) => void = () => undefined;
  const settled = new Promise<void>((resolve, reject) => {
    settle = (lost) => (lost ? reject(lost) : resolve());
  });
  settled.catch(() => undefined); // a transaction nobody joined
  prepared(db, "BEGIN IMMEDIATE").run();
  fingerprints.held();
  ops.begin();
  openBatches.set(db, settled);
  let ran: { ok: true; value: T } | { ok: false; error: unknown };
  try {
    ran = { ok: true, value: await fn() };
  } catch (error) {
    ran = { ok: false, error };
  }
  // Still this batch's transaction: another batch that began one after this one was lost owns
  // whatever is open now, and must not see it committed or rolled back from here.
  fingerprints.released();
  if (openBatches.get(db) !== settled || !db.inTransaction) {
    if (openBatches.get(db) === settled) ops.end();
    const lost = new Error("the batch's transaction was rolled back before its commit");
    settle(lost);
    throw lost;
  }
  openBatches.delete(db);
  try {
    // The op records that waited for outcomes (`OpRecords`) go with their changes.
    ops.flush();
    prepared(db, "COMMIT").run();
  } catch (err) {
    if (db.inTransaction) prepared(db, "ROLLBACK").run();
    settle(err as Error);
    throw err;
  } finally {
    ops.end();
  }
  settle();
  if (!ran.ok) throw ran.error;
  return ran.value;
}

/**
 * The alert data on an open better-sqlite3 database (WAL is the opener's business).
 * `mergeFingerprintsAt`: tests (see `OpenFingerprints`).
 */
export function createSqliteAlertsStores(db: Database, opts: { mergeFingerprintsAt?: number } = {}): AlertsStores {
  migrateAlertsSchema(db);
  const alerts = new SqliteAlertStore(db, opts.mergeFingerprintsAt);
  // The connection's look-up, which the store made with its bound: told when a batch holds the write lock.
  const fingerprints = OpenFingerprints.of(db);
  return {
    alerts,
    incidents: new SqliteIncidentStore(db),
    requests: new SqliteRequestLog(db),
    overview: new SqliteAlertOverview(db),
    batch: (fn) => inOneTransaction(db, fingerprints, OpRecords.of(db), fn),
    ping: async () => {
      prepared(db, "SELECT 1").get();
    },
    // The database handle belongs to the caller (it may hold other tables).
    close: async () => {},
  };
}
