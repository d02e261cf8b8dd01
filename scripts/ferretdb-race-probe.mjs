#!/usr/bin/env node
// Race probe (docs/architecture.md, "Several replicas"): two MongoClients, i.e. two replicas, run
// the same operations at once against one MongoDB-protocol server and count what survives.
// Usage: node scripts/ferretdb-race-probe.mjs mongodb://127.0.0.1:27017/ [operations per client]
// Works in (and drops) the database race_probe.
import { MongoClient } from "mongodb";

const url = process.argv[2];
const N = Number(process.argv[3] ?? 300);
const INFLIGHT = 16;
const a = new MongoClient(url, { maxPoolSize: INFLIGHT });
const b = new MongoClient(url, { maxPoolSize: INFLIGHT });
await a.connect();
await b.connect();
const db = (c) => c.db("race_probe");
await db(a)
  .dropDatabase()
  .catch(() => {});
const col = (c) => db(c).collection("c");
await col(a).insertOne({ _id: "inc", n: 0 });
await col(a).insertOne({ _id: "fam", n: 0 });
await col(a).insertOne({ _id: "cas", v: 0 });
async function pool(n, fn) {
  let i = 0;
  await Promise.all(
    Array.from({ length: INFLIGHT }, async () => {
      while (i < n) {
        i++;
        await fn();
      }
    }),
  );
}
const t0 = Date.now();
// 1. $inc by updateOne from both clients
await Promise.all([a, b].map((c) => pool(N, () => col(c).updateOne({ _id: "inc" }, { $inc: { n: 1 } }))));
const inc = (await col(a).findOne({ _id: "inc" })).n;
// 2. findOneAndUpdate $inc returning the new value (sequence allocation)
const got = [];
await Promise.all(
  [a, b].map((c) =>
    pool(N, async () => {
      const r = await col(c).findOneAndUpdate({ _id: "fam" }, { $inc: { n: 1 } }, { returnDocument: "after", upsert: true });
      got.push((r.value ?? r).n);
    }),
  ),
);
const fam = (await col(a).findOne({ _id: "fam" })).n;
const dupSeq = got.length - new Set(got).size;
// 3. compare-and-set: findOneAndUpdate with the expected value in the filter
let wins = 0,
  misses = 0;
await Promise.all(
  [a, b].map((c) =>
    pool(N, async () => {
      const cur = (await col(c).findOne({ _id: "cas" })).v;
      const r = await col(c).findOneAndUpdate({ _id: "cas", v: cur }, { $set: { v: cur + 1 } }, { returnDocument: "after" });
      if ((r?.value ?? r)?._id) wins++;
      else misses++;
    }),
  ),
);
const cas = (await col(a).findOne({ _id: "cas" })).v;
// 3b. updateOne with condition (modifiedCount)
await col(a).insertOne({ _id: "cas2", v: 0 });
let wins2 = 0;
await Promise.all(
  [a, b].map((c) =>
    pool(N, async () => {
      const cur = (await col(c).findOne({ _id: "cas2" })).v;
      const r = await col(c).updateOne({ _id: "cas2", v: cur }, { $set: { v: cur + 1 } });
      wins2 += r.modifiedCount;
    }),
  ),
);
const cas2 = (await col(a).findOne({ _id: "cas2" })).v;
// 4. unique _id insert race
let ins = 0,
  dup = 0;
await Promise.all(
  [a, b].map((c) =>
    pool(N, async () => {
      const k = `k${Math.floor(Math.random() * (N / 4))}`;
      try {
        await col(c).insertOne({ _id: k });
        ins++;
      } catch (e) {
        if (e.code === 11000 || /UNIQUE|duplicate/i.test(e.message)) dup++;
        else throw e;
      }
    }),
  ),
);
const distinct = await col(a).countDocuments({ _id: { $regex: "^k" } });
// 5. unique secondary index insert race
await db(a).collection("u").createIndex({ key: 1 }, { unique: true });
let uins = 0;
await Promise.all(
  [a, b].map((c) =>
    pool(N, async () => {
      const k = `k${Math.floor(Math.random() * (N / 4))}`;
      try {
        await db(c).collection("u").insertOne({ key: k });
        uins++;
      } catch (e) {
        if (!(e.code === 11000 || /UNIQUE|duplicate/i.test(e.message))) throw e;
      }
    }),
  ),
);
const udistinct = (await db(a).collection("u").distinct("key")).length;
const ucount = await db(a).collection("u").countDocuments({});
console.log(
  JSON.stringify({
    url: url.replace(/\/\/.*@/, "//"),
    perClient: N,
    inflightPerClient: INFLIGHT,
    inc: { expected: 2 * N, got: inc, lost: 2 * N - inc },
    findAndModifyInc: { expected: 2 * N, final: fam, duplicateReturnedValues: dupSeq },
    casFindOneAndUpdate: { wins, misses, final: cas, lostWins: wins - cas },
    casUpdateOne: { wins: wins2, final: cas2, lostWins: wins2 - cas2 },
    uniqueIdInsert: { inserted: ins, duplicates: dup, docs: distinct, extra: ins - distinct },
    uniqueIndexInsert: { inserted: uins, docs: ucount, distinctKeys: udistinct },
    ms: Date.now() - t0,
  }),
);
await db(a)
  .dropDatabase()
  .catch(() => {});
await a.close();
await b.close();
