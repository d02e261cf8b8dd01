import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { describe, inject } from "vitest";
import { describeSettingsStoreContract } from "./contract.js";
import { MongoSettingsStore } from "./mongo-settings-store.js";
import { SqliteSettingsStore } from "./sqlite-settings-store.js";

describeSettingsStoreContract("sqlite (:memory:)", async () => {
  const store = new SqliteSettingsStore(":memory:");
  return { store, cleanup: () => store.close() };
});

const mongoUrl = inject("mongoUrl");
if (!mongoUrl) console.warn("[settings-service] MongoDB protocol server unavailable: skipping the MongoDB store contract");

describe.skipIf(!mongoUrl)("mongodb (FerretDB)", () => {
  describeSettingsStoreContract("mongodb", async () => {
    const client = await new MongoClient(mongoUrl).connect();
    const db = client.db(`tocsin_test_settings_${randomBytes(4).toString("hex")}`);
    const store = await MongoSettingsStore.open(db);
    const replicas: MongoSettingsStore[] = [];
    return {
      store,
      replica: async () => {
        const replica = await MongoSettingsStore.open(mongoUrl, db.databaseName);
        replicas.push(replica);
        return replica;
      },
      cleanup: async () => {
        await Promise.all(replicas.map((r) => r.close()));
        await db.dropDatabase();
        await client.close();
      },
    };
  });
});
