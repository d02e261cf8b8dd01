import { prepared } from "@tocsin/store";
import type { Database } from "better-sqlite3";
import type { AlertsStores } from "../../domain/alerts/ports.js";
import { SqliteAlertStore } from "./sqlite-alert-store.js";
import { SqliteIncidentStore, SqliteRequestLog } from "./sqlite-incident-store.js";
import { migrateAlertsSchema } from "./sqlite-schema.js";

/** The alert data on an open better-sqlite3 database (WAL is the opener's business). */
export function createSqliteAlertsStores(db: Database): AlertsStores {
  migrateAlertsSchema(db);
  return {
    alerts: new SqliteAlertStore(db),
    incidents: new SqliteIncidentStore(db),
    requests: new SqliteRequestLog(db),
    ping: async () => {
      prepared(db, "SELECT 1").get();
    },
    // The database handle belongs to the caller (it may hold other tables).
    close: async () => {},
  };
}
