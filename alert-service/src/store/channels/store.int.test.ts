import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { MongoClient } from "mongodb";
import { describe, inject } from "vitest";
import { describeDeliveryLogContract, describeDestinationStoreContract } from "./contract.js";
import { createMongoDeliveryLog } from "./mongo-delivery-log.js";
import { createMongoDestinationStore } from "./mongo-destination-store.js";
import { createSqliteDeliveryLog } from "./sqlite-delivery-log.js";
import { createSqliteDestinationStore } from "./sqlite-destination-store.js";

describeDestinationStoreContract("sqlite", async () => {
  const db = new Database(":memory:");
  return { store: createSqliteDestinationStore(db), cleanup: async () => void db.close() };
});

describeDeliveryLogContract("sqlite", async () => {
  const db = new Database(":memory:");
  return { log: createSqliteDeliveryLog(db), cleanup: async () => void db.close() };
});

const mongoUrl = inject("mongoUrl");
if (!mongoUrl)
  console.warn("[alert-service] MongoDB-protocol server unavailable: the MongoDB DestinationStore contract is SKIPPED");

describe.skipIf(!mongoUrl)("mongo", () => {
  describeDestinationStoreContract("mongodb (FerretDB)", async () => {
    const client = await MongoClient.connect(mongoUrl);
    const db = client.db(`tocsin_test_channels_${randomBytes(4).toString("hex")}`);
    return {
      store: await createMongoDestinationStore(db),
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
  describeDeliveryLogContract("mongodb (FerretDB)", async () => {
    const client = await MongoClient.connect(mongoUrl);
    const db = client.db(`tocsin_test_deliveries_${randomBytes(4).toString("hex")}`);
    return {
      log: await createMongoDeliveryLog(db),
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
});
