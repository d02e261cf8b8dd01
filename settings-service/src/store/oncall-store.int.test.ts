import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { describe, inject } from "vitest";
import { MongoOncallStore } from "./mongo-oncall-store.js";
import { describeOncallStoreContract } from "./oncall-contract.js";
import { SqliteOncallStore } from "./sqlite-oncall-store.js";

describeOncallStoreContract("sqlite (:memory:)", async () => {
  const store = new SqliteOncallStore(":memory:");
  return { store, cleanup: () => store.close() };
});

const mongoUrl = inject("mongoUrl");
if (!mongoUrl)
  console.warn("[settings-service] MongoDB protocol server unavailable: skipping the MongoDB on-call store contract");

describe.skipIf(!mongoUrl)("mongodb (FerretDB)", () => {
  describeOncallStoreContract("mongodb", async () => {
    const client = await new MongoClient(mongoUrl).connect();
    const db = client.db(`tocsin_test_oncall_${randomBytes(4).toString("hex")}`);
    const store = await MongoOncallStore.open(db);
    return {
      store,
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
});
