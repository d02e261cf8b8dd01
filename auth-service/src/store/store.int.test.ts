import { randomBytes } from "node:crypto";
import { describe, inject } from "vitest";
import { describeAuthStoreContract } from "./contract.js";
import { MongoAuthStore } from "./mongo-auth-store.js";
import { SqliteAuthStore } from "./sqlite-auth-store.js";

describeAuthStoreContract("SQLite (:memory:)", async () => {
  const store = new SqliteAuthStore(":memory:");
  return { store, cleanup: () => store.close() };
});

const mongoUrl = inject("mongoUrl");
if (!mongoUrl)
  console.warn("auth-service MongoDB store contract SKIPPED: no MongoDB-protocol server (run scripts/install-ferretdb.sh)");

describe.skipIf(!mongoUrl)("MongoDB", () => {
  describeAuthStoreContract("MongoDB (FerretDB)", async () => {
    const store = await MongoAuthStore.connect(mongoUrl, `tocsin_test_auth_${randomBytes(6).toString("hex")}`);
    return {
      store,
      async cleanup() {
        await store.drop();
        await store.close();
      },
    };
  });
});
