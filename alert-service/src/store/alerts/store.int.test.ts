import Database from "better-sqlite3";
import { MongoClient } from "mongodb";
import { describe, expect, inject, it } from "vitest";
import { describeAlertsStoresContract } from "./contract.js";
import { MongoIncidentStore } from "./mongo-incident-store.js";
import { createMongoAlertsStores } from "./mongo-stores.js";
import { describeAlertOverviewContract } from "./overview-contract.js";
import { createSqliteAlertsStores } from "./sqlite-stores.js";

describeAlertsStoresContract("sqlite", async () => {
  const db = new Database(":memory:");
  return { stores: createSqliteAlertsStores(db), cleanup: async () => void db.close() };
});
// Every alert merged into the open fingerprints' table at once: the contract on the table's side.
describeAlertsStoresContract("sqlite, open fingerprints merged at every alert", async () => {
  const db = new Database(":memory:");
  return { stores: createSqliteAlertsStores(db, { mergeFingerprintsAt: 1 }), cleanup: async () => void db.close() };
});
describeAlertOverviewContract("sqlite", async () => {
  const db = new Database(":memory:");
  return { stores: createSqliteAlertsStores(db), cleanup: async () => void db.close() };
});

const mongoUrl = inject("mongoUrl");
if (!mongoUrl) console.warn("[alert stores] MongoDB-protocol server unavailable: the MongoDB contract run is SKIPPED");
describe.skipIf(!mongoUrl)("mongodb", () => {
  describeAlertsStoresContract("mongodb (FerretDB)", async () => {
    const client = await MongoClient.connect(mongoUrl);
    const db = client.db(`tocsin_test_alerts_${Math.random().toString(36).slice(2, 10)}`);
    return {
      stores: await createMongoAlertsStores(db),
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });

  describeAlertOverviewContract("mongodb (FerretDB)", async () => {
    const client = await MongoClient.connect(mongoUrl);
    const db = client.db(`tocsin_test_overview_${Math.random().toString(36).slice(2, 10)}`);
    return {
      stores: await createMongoAlertsStores(db),
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });

  it("keeps every alert setting changed through two replicas (two clients, two stores) at the same moment", async () => {
    const name = `tocsin_test_alert_settings_${Math.random().toString(36).slice(2, 10)}`;
    const clients = await Promise.all([MongoClient.connect(mongoUrl), MongoClient.connect(mongoUrl)]);
    try {
      const [a, b] = clients.map((c) => new MongoIncidentStore(c.db(name))) as [MongoIncidentStore, MongoIncidentStore];
      const at = new Date("2026-01-01T00:00:00Z");
      for (let project = 1; project <= 10; project++) {
        await Promise.all([
          a.updateSettings(project, { createIncident: true }, at),
          b.updateSettings(project, { sendEmail: true }, at),
          a.updateSettings(project, { autoCloseIncident: false }, at),
        ]);
        expect(await b.settings(project)).toEqual({ createIncident: true, sendEmail: true, autoCloseIncident: false });
      }
    } finally {
      await clients[0]?.db(name).dropDatabase();
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
