import Database from "better-sqlite3";
import type { NewAlert } from "../../domain/alerts/ports.js";
import { alertInput } from "./contract.js";
import { createSqliteAlertsStores } from "./sqlite-stores.js";

/**
 * What the tests of SQLite's writes inside a batch share (sqlite-batch-alert-writes.test.ts and
 * sqlite-batch-op-records.test.ts): one time, a new alert by its op key, and the stores on an
 * in-memory database whose op records fail on demand.
 */

export const at = new Date("2026-11-28T10:00:00.000Z");
export const input = (opKey: string, fingerprint?: string): NewAlert => ({
  ...alertInput(1, fingerprint ? { fingerprint } : {}),
  opKey,
});

/** The stores on an in-memory database, the rows of alerts, alert_ops and alert_counts counted; an op record whose op starts with 'fail' is refused. */
export function open(): {
  db: Database.Database;
  stores: ReturnType<typeof createSqliteAlertsStores>;
  alerts: () => number;
  ops: () => number;
  counted: () => number;
} {
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
