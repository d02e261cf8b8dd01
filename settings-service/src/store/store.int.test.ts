import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { describe, expect, inject, it } from "vitest";
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

describe.skipIf(!mongoUrl)("mongodb (FerretDB): settings stored one document per setting", () => {
  it("become field documents when the store opens, newer field documents winning", async () => {
    const client = await new MongoClient(mongoUrl).connect();
    const db = client.db(`tocsin_test_settings_${randomBytes(4).toString("hex")}`);
    const at = new Date("2026-11-20T10:00:00.000Z");
    await db.collection("notification_settings").insertMany([
      {
        userId: 1,
        sourceType: "global",
        sourceId: 0,
        level: "watch",
        notificationEmail: "a@example.com",
        events: { new_note: true },
        createdAt: at,
        updatedAt: at,
      },
      {
        userId: 2,
        sourceType: "project",
        sourceId: 5,
        level: "custom",
        events: { new_issue: true },
        createdAt: at,
        updatedAt: at,
      },
    ]);
    // A replica already on the new layout wrote user 2's level after the old document.
    await db.collection("notification_setting_fields").insertOne({
      _id: "2:project:5:level" as never,
      userId: 2,
      sourceType: "project",
      sourceId: 5,
      field: "level",
      value: "mention",
      at: new Date("2026-11-21T10:00:00.000Z"),
    });
    const store = await MongoSettingsStore.open(db);
    try {
      expect(await store.get({ userId: 1, sourceType: "global", sourceId: 0 })).toMatchObject({
        level: "watch",
        notificationEmail: "a@example.com",
        events: { new_note: true },
        createdAt: at,
      });
      expect(await store.get({ userId: 2, sourceType: "project", sourceId: 5 })).toMatchObject({
        level: "mention",
        events: { new_issue: true },
      });
      expect(await db.collection("notification_settings").countDocuments()).toBe(0);
    } finally {
      await store.close();
      await db.dropDatabase();
      await client.close();
    }
  });
});
