import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { MongoClient } from "mongodb";
import { describe, inject } from "vitest";
import { describeIntegrationStoreContract } from "./contract.js";
import { createMongoIntegrationStore } from "./mongo-integration-store.js";
import { createSqliteIntegrationStore } from "./sqlite-integration-store.js";

describeIntegrationStoreContract("sqlite", async () => {
  const db = new Database(":memory:");
  return { store: createSqliteIntegrationStore(db), cleanup: async () => void db.close() };
});

const mongoUrl = inject("mongoUrl");
if (!mongoUrl)
  console.warn("[alert-service] MongoDB-protocol server unavailable: the MongoDB IntegrationStore contract is SKIPPED");

describe.skipIf(!mongoUrl)("mongo", () => {
  describeIntegrationStoreContract("mongodb (FerretDB)", async () => {
    const client = await MongoClient.connect(mongoUrl);
    const db = client.db(`tocsin_test_integrations_${randomBytes(4).toString("hex")}`);
    return {
      store: await createMongoIntegrationStore(db),
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
});
