import { prepared } from "@tocsin/store";
import type { Database } from "better-sqlite3";
import type { AlertsStores } from "../../domain/alerts/ports.js";
import { SqliteAlertOverview } from "./sqlite-alert-overview.js";
import { SqliteAlertStore } from "./sqlite-alert-store.js";
import { SqliteIncidentStore, SqliteRequestLog } from "./sqlite-incident-store.js";
import { migrateAlertsSchema } from "./sqlite-schema.js";

/**
 * Runs `fn` inside one transaction of `db`, committed when it settles (see `AlertsStores.batch`).
 * The store's own transactions inside it become savepoints (better-sqlite3 nests them), so each
 * write stays atomic, and nothing `fn` did is rolled back when it fails. Already in a
 * transaction (a batch running beside another on this connection), `fn` just joins it.
 */
async function inOneTransaction<T>(db: Database, fn: () => Promise<T>): Promise<T> {
  if (db.inTransaction) return fn();
  prepared(db, "BEGIN IMMEDIATE").run();
  try {
    return await fn();
  } finally {
    try {
      if (db.inTransaction) prepared(db, "COMMIT").run();
    } catch (err) {
      if (db.inTransaction) prepared(db, "ROLLBACK").run();
      // biome-ignore lint/correctness/noUnsafeFinally: a failed commit is the batch's failure
      throw err;
    }
  }
}

/** The alert data on an open better-sqlite3 database (WAL is the opener's business). */
export function createSqliteAlertsStores(db: Database): AlertsStores {
  migrateAlertsSchema(db);
  return {
    alerts: new SqliteAlertStore(db),
    incidents: new SqliteIncidentStore(db),
    requests: new SqliteRequestLog(db),
    overview: new SqliteAlertOverview(db),
    batch: (fn) => inOneTransaction(db, fn),
    ping: async () => {
      prepared(db, "SELECT 1").get();
    },
    // The database handle belongs to the caller (it may hold other tables).
    close: async () => {},
  };
}
