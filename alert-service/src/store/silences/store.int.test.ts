import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { MongoClient } from "mongodb";
import { describe, inject } from "vitest";
import { describeSilenceStoreContract } from "./contract.js";
import { createMongoSilenceStore } from "./mongo-silence-store.js";
import { createSqliteSilenceStore } from "./sqlite-silence-store.js";

describeSilenceStoreContract("sqlite", async () => {
  const db = new Database(":memory:");
  return { store: createSqliteSilenceStore(db), cleanup: async () => void db.close() };
});

const mongoUrl = inject("mongoUrl");
if (!mongoUrl) console.warn("[alert-service] MongoDB-protocol server unavailable: the MongoDB SilenceStore contract is SKIPPED");

describe.skipIf(!mongoUrl)("mongo", () => {
  describeSilenceStoreContract("mongodb (FerretDB)", async () => {
    const client = await MongoClient.connect(mongoUrl);
    const db = client.db(`tocsin_test_silences_${randomBytes(4).toString("hex")}`);
    return {
      store: await createMongoSilenceStore(db),
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
});
