import Database from "better-sqlite3";
import { MongoClient } from "mongodb";
import { describe, inject } from "vitest";
import { describeAlertsStoresContract } from "./contract.js";
import { createMongoAlertsStores } from "./mongo-stores.js";
import { createSqliteAlertsStores } from "./sqlite-stores.js";

describeAlertsStoresContract("sqlite", async () => {
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
});
