import type { Db } from "mongodb";
import type { AlertsStores } from "../../domain/alerts/ports.js";
import { MongoAlertOverview } from "./mongo-alert-overview.js";
import { AlertScans } from "./mongo-alert-scans.js";
import { MongoAlertStore } from "./mongo-alert-store.js";
import { ensureAlertIndexes, isFerretDb } from "./mongo-common.js";
import { MongoIncidentStore, MongoRequestLog } from "./mongo-incident-store.js";

/** The alert data on a MongoDB (or FerretDB) database; the client belongs to the caller. */
export async function createMongoAlertsStores(db: Db): Promise<AlertsStores> {
  await ensureAlertIndexes(db);
  const ferretDb = await isFerretDb(db);
  // The lists' and the overview's reads share one turn on FerretDB (AlertScans).
  const scans = new AlertScans(ferretDb);
  return {
    alerts: new MongoAlertStore(db, { ferretDb, scans }),
    incidents: new MongoIncidentStore(db),
    requests: new MongoRequestLog(db),
    overview: new MongoAlertOverview(db, scans),
    // No multi-document transactions on FerretDB 1.x: every write commits by itself.
    batch: (fn) => fn(),
    ping: async () => {
      await db.command({ ping: 1 });
    },
    close: async () => {},
  };
}
