import { randomBytes } from "node:crypto";
import { type Db, MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { isDuplicateKey } from "./duplicates.js";
import { MongoSequences } from "./sequences.js";

const mongoUrl = inject("mongoUrl");
if (!mongoUrl) console.warn("[libs/store] MongoDB protocol server unavailable: skipping its suite");

describe.skipIf(!mongoUrl)("store toolkit on a MongoDB-protocol server", () => {
  let client: MongoClient;
  let db: Db;
  beforeAll(async () => {
    client = await new MongoClient(mongoUrl).connect();
    db = client.db(`tocsin_test_store_${randomBytes(4).toString("hex")}`);
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await client?.close();
  });

  it("isDuplicateKey recognises the server's answers to violating inserts, upserts and updates", async () => {
    const col = db.collection<{ _id: number; k: string; n?: number }>("dups");
    await col.createIndex({ k: 1 }, { unique: true, name: "k" });
    await col.insertOne({ _id: 1, k: "a" });
    const insert = await col.insertOne({ _id: 2, k: "a" }).catch((err: unknown) => err);
    expect(isDuplicateKey(insert)).toBe(true);
    // The filter matches nothing, so the upsert inserts `k: "a"` again (FerretDB 1.x: not 11000).
    const upsert = await col
      .findOneAndUpdate({ k: "a", n: 5 }, { $set: { n: 5 } }, { upsert: true, returnDocument: "after" })
      .catch((err: unknown) => err);
    expect(upsert).toBeInstanceOf(Error);
    expect(isDuplicateKey(upsert)).toBe(true);
    // Moving a document onto a taken key: FerretDB 1.x answers InternalError + SQLite's text.
    await col.insertOne({ _id: 3, k: "b" });
    const moved = await col.findOneAndUpdate({ _id: 3 }, { $set: { k: "a" } }).catch((err: unknown) => err);
    expect(isDuplicateKey(moved)).toBe(true);
    const updated = await col.updateOne({ _id: 3 }, { $set: { k: "a" } }).catch((err: unknown) => err);
    expect(isDuplicateKey(updated)).toBe(true);
  });

  it("MongoSequences counts from 1 per name, without gaps under concurrency, and reserves blocks", async () => {
    const seq = new MongoSequences(db);
    expect(await seq.next("a")).toBe(1);
    const many = await Promise.all(Array.from({ length: 20 }, () => seq.next("a")));
    expect([...many].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(await seq.next("b")).toBe(1);
    expect(await seq.reserve("a", 10)).toBe(31);
    expect(await new MongoSequences(db).next("a")).toBe(32);
  });

  it("reserveBlock skips a block another process claimed, even when the counter handed it out again", async () => {
    const seq = new MongoSequences(db);
    expect(await seq.reserveBlock("blocks", 100)).toBe(100);
    // Another process claimed 101-200, and FerretDB's unlocked $inc stepped the counter back.
    await db.collection<{ _id: string }>("counters_claims").insertOne({ _id: "blocks:200" });
    await db.collection<{ _id: string; seq: number }>("counters").updateOne({ _id: "blocks" }, { $set: { seq: 100 } });
    expect(await seq.reserveBlock("blocks", 100)).toBe(300);
    expect(await seq.reserveBlock("blocks", 100)).toBe(400);
  });
});
