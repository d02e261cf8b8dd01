import Database from "better-sqlite3";
import { MongoClient } from "mongodb";
import { describe, inject } from "vitest";
import { describeMailStoreContract } from "./contract.js";
import { createMongoMailStore } from "./mongo-mail-store.js";
import { createSqliteMailStore } from "./sqlite-mail-store.js";

describeMailStoreContract("sqlite", async () => {
  const db = new Database(":memory:");
  return { store: createSqliteMailStore(db), cleanup: async () => void db.close() };
});

const mongoUrl = inject("mongoUrl");
if (!mongoUrl) console.warn("[mail store] MongoDB-protocol server unavailable: the MongoDB contract run is SKIPPED");
describe.skipIf(!mongoUrl)("mongodb", () => {
  describeMailStoreContract("mongodb (FerretDB)", async () => {
    const client = await MongoClient.connect(mongoUrl);
    const db = client.db(`tocsin_test_mail_${Math.random().toString(36).slice(2, 10)}`);
    return {
      store: await createMongoMailStore(db),
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
});
