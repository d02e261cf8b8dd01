import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "@tocsin/store";
import { until } from "@tocsin/testing";
import Database from "better-sqlite3";
import { MongoClient } from "mongodb";
import { describe, expect, inject, it } from "vitest";
import { describeIntegrationStoreContract, http } from "./contract.js";
import { createMongoIntegrationStore } from "./mongo-integration-store.js";
import { createSqliteIntegrationStore } from "./sqlite-integration-store.js";

describeIntegrationStoreContract("sqlite", async () => {
  const db = new Database(":memory:");
  return { store: createSqliteIntegrationStore(db), cleanup: async () => void db.close() };
});

describe("sqlite, alert.db's write lock held by the processing thread", () => {
  it("records a key's use once the lock is free, the accepting event loop running meanwhile", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tocsin-integration-lock-"));
    const file = join(dir, "alert.db");
    const db = openSqlite(file);
    const store = createSqliteIntegrationStore(db);
    const { id, createdAt: at } = await store.insert(http(1, "Monitor", { active: true }));
    const holder = openSqlite(file);
    holder.exec("BEGIN IMMEDIATE");
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 1);
    const touched = store.touch(1, id, new Date(at.getTime() + 60_000));
    await until(() => ticks >= 5);
    holder.exec("COMMIT");
    await touched;
    clearInterval(ticking);
    expect((await store.get(1, id))?.tokenLastUsedAt).toEqual(new Date(at.getTime() + 60_000));
    holder.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
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
