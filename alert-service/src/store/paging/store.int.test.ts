import Database from "better-sqlite3";
import { MongoClient } from "mongodb";
import { describe, inject } from "vitest";
import { describeEscalationStoreContract } from "./contract.js";
import { createMongoEscalationStore } from "./mongo-escalation-store.js";
import { createSqliteEscalationStore } from "./sqlite-escalation-store.js";

describeEscalationStoreContract("sqlite", async () => {
  const db = new Database(":memory:");
  return { store: createSqliteEscalationStore(db), cleanup: async () => void db.close() };
});

const mongoUrl = inject("mongoUrl");
if (!mongoUrl) console.warn("[escalation store] MongoDB-protocol server unavailable: the MongoDB contract run is SKIPPED");
describe.skipIf(!mongoUrl)("mongodb", () => {
  describeEscalationStoreContract("mongodb (FerretDB)", async () => {
    const client = await MongoClient.connect(mongoUrl);
    const db = client.db(`tocsin_test_esc_${Math.random().toString(36).slice(2, 10)}`);
    return {
      store: await createMongoEscalationStore(db),
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
});
