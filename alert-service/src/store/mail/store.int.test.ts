import Database from "better-sqlite3";
import { MongoClient } from "mongodb";
import { describe, expect, inject, it } from "vitest";
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

  it("ranks exactly when two replicas (two clients, two stores) claim in one project at once", async () => {
    const name = `tocsin_test_mail_${Math.random().toString(36).slice(2, 10)}`;
    const clients = await Promise.all([MongoClient.connect(mongoUrl), MongoClient.connect(mongoUrl)]);
    try {
      const [a, b] = await Promise.all(clients.map((c) => createMongoMailStore(c.db(name))));
      const t0 = Date.parse("2026-01-01T00:00:00Z");
      const claim = (store: typeof a, i: number) => store?.claimSlot(9, `${i}:triggered`, new Date(t0 + i), 600_000);
      const slots = await Promise.all(Array.from({ length: 30 }, (_, i) => claim(i % 2 ? a : b, i)));
      // One window (opened by whichever claim came first), ranks 1-30 each given once.
      expect(new Set(slots.map((s) => s?.windowStart.getTime())).size).toBe(1);
      expect(slots.map((s) => s?.seq).sort((x = 0, y = 0) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    } finally {
      await clients[0]?.db(name).dropDatabase();
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
