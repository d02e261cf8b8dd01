import { until } from "@tocsin/testing";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, inject, it } from "vitest";
import { BullmqJobQueue } from "./bullmq-queue.js";
import { logger, redisHelpers } from "./queue.int.fixtures.js";

const redisUrl = inject("redisUrl");
const { dropKeys, onOwnPrefix } = redisHelpers(redisUrl);
describe.skipIf(!redisUrl)("bullmq", () => {
  it("stores a lane's bulk as one Redis job, runs only the jobs of it not recorded as ended, and deletes it at its end", async () => {
    await onOwnPrefix(async ({ prefix, q, redis }) => {
      const jobs = Array.from({ length: 40 }, (_, n) => ({ id: `pack:${n}`, name: "n", lane: 5, data: { n } }));
      // A second pack, behind the first: it ends with a batch of the first's jobs, not through BullMQ.
      const behind = Array.from({ length: 2 }, (_, n) => ({ id: `pack:${40 + n}`, name: "n", lane: 5, data: { n: 40 + n } }));
      await q.addBulk(jobs);
      await q.addBulk(behind);
      // One carrier per bulk in the lane (not 42 BullMQ jobs): what makes a batch post cheap to accept.
      expect(await redis.llen(`${prefix}:alerts-lane-5:wait`)).toBe(2);
      // As a run that crashed after its first batches would have left it: 0-9 recorded as ended.
      for (let n = 0; n < 10; n++)
        await redis.hset(
          `${prefix}:alerts-lane-5:tocsin-done`,
          `pack_${n}`,
          JSON.stringify({ state: "completed", result: { before: n } }),
        );
      const ran: number[] = [];
      let largest = 0;
      await q.start({
        maxJobs: 16,
        batch: async (run) => {
          largest = Math.max(largest, run.length);
          ran.push(...run.map((job) => (job.data as { n: number }).n));
          return run.map((job) => ({ ok: true, result: { n: (job.data as { n: number }).n } }));
        },
      });
      for (const { id, data } of [...jobs, ...behind])
        expect(await q.waitFor(id, 5, 10_000)).toEqual({
          state: "completed",
          result: data.n < 10 ? { before: data.n } : { n: data.n },
        });
      expect(ran).toEqual([...jobs.slice(10), ...behind].map((j) => j.data.n));
      expect(largest).toBe(16);
      // Added again: known ids, nothing runs.
      await q.addBulk(jobs.slice(20, 25));
      await q.add({ id: "pack:after", name: "n", lane: 5, data: { n: 99 } });
      expect((await q.waitFor("pack:after", 5, 10_000))?.state).toBe("completed");
      expect(ran.slice(32)).toEqual([99]);
      expect((await q.counts()).pending).toBe(0);
      // The packs are gone (their jobs' ends are in the done hash); the job alone is kept as BullMQ keeps it.
      await until(async () => (await redis.keys(`${prefix}:alerts-lane-5:tocsin-pack-*`)).length === 0);
      expect(await redis.zrange(`${prefix}:alerts-lane-5:completed`, 0, -1)).toEqual(["pack_after"]);
    });
  });

  it("adds to a batch only the packs behind the head that fit whole, so that no pack is read again as a head run in part", async () => {
    await onOwnPrefix(async ({ prefix, q, redis }) => {
      // Three packs of 10, then three jobs alone; batches of at most 16.
      const packs = [0, 1, 2].map((p) =>
        Array.from({ length: 10 }, (_, n) => ({ id: `w:${p * 10 + n}`, name: "n", lane: 2, data: { n: p * 10 + n } })),
      );
      const alone = [30, 31, 32].map((n) => ({ id: `w:${n}`, name: "n", lane: 2, data: { n } }));
      for (const pack of packs) await q.addBulk(pack);
      for (const job of alone) await q.add(job);
      const batches: number[][] = [];
      await q.start({
        maxJobs: 16,
        batch: async (run) => {
          batches.push(run.map((job) => (job.data as { n: number }).n));
          return run.map(() => ({ ok: true, result: null }));
        },
      });
      for (const job of [...packs.flat(), ...alone]) expect((await q.waitFor(job.id, 2, 10_000))?.state).toBe("completed");
      expect(batches.flat()).toEqual(Array.from({ length: 33 }, (_, n) => n));
      // A pack of 10 behind a head of 10 would not fit in 16: each pack is a batch of its own;
      // the jobs alone fit behind the last pack.
      expect(batches.map((b) => b.length)).toEqual([10, 10, 13]);
      await until(async () => (await q.counts()).pending === 0);
      await until(async () => (await redis.keys(`${prefix}:alerts-lane-2:tocsin-pack-*`)).length === 0);
    });
  });

  it("trims the done hash by whole log entries, by age and by count, and the done times of a version before the log by age", async () => {
    await onOwnPrefix(async ({ prefix, q, redis }) => {
      const key = (name: string) => `${prefix}:alerts-lane-5:${name}`;
      const result = JSON.stringify({ state: "completed", result: null });
      const ids = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i}`);
      const seed = async (entries: Array<[number, string[]]>, before: Array<[number, string]> = []) => {
        await redis.del(key("tocsin-done"), key("tocsin-done-log"), key("tocsin-done-at"));
        for (const [, list] of entries)
          for (let i = 0; i < list.length; i += 10_000)
            await redis.hset(key("tocsin-done"), Object.fromEntries(list.slice(i, i + 10_000).map((id) => [id, result])));
        for (const [at, list] of entries) await redis.rpush(key("tocsin-done-log"), JSON.stringify([at, list]));
        for (const [at, id] of before) {
          await redis.hset(key("tocsin-done"), id, result);
          await redis.zadd(key("tocsin-done-at"), at, id);
        }
      };
      const run = async (tag: string) => {
        const jobs = ids(tag, 2).map((id) => ({ id, name: "n", lane: 5, data: {} }));
        await q.addBulk(jobs);
        for (const { id } of jobs) expect((await q.waitFor(id, 5, 10_000))?.state).toBe("completed");
      };
      await q.start(async () => null);
      const now = Date.now();
      const hour = 3_600_000;
      // By age: an entry older than an hour goes, a younger one stays; so do the older version's times.
      await seed(
        [
          [now - 2 * hour, ids("old", 3)],
          [now - 60_000, ids("young", 3)],
        ],
        [
          [now - 2 * hour, "before-old"],
          [now - 60_000, "before-young"],
        ],
      );
      await run("a");
      expect((await redis.hkeys(key("tocsin-done"))).sort()).toEqual(["a0", "a1", "before-young", "young0", "young1", "young2"]);
      expect(await redis.zrange(key("tocsin-done-at"), 0, -1)).toEqual(["before-young"]);
      const log = (await redis.lrange(key("tocsin-done-log"), 0, -1)).map((e) => JSON.parse(e) as [number, string[]]);
      // One entry per record call (the runner here ends a job per batch).
      expect(log.flatMap(([, list]) => list)).toEqual([...ids("young", 3), "a0", "a1"]);
      for (const [at] of log.slice(1)) expect(at).toBeGreaterThanOrEqual(now);
      // By count: 100,000 kept at most, the oldest entries first, however young.
      await seed([[now - 30_000, ids("full", 100_000)]]);
      await run("b");
      expect((await redis.hkeys(key("tocsin-done"))).sort()).toEqual(["b0", "b1"]);
      expect(
        (await redis.lrange(key("tocsin-done-log"), 0, -1)).flatMap((e) => (JSON.parse(e) as [number, string[]])[1]),
      ).toEqual(["b0", "b1"]);
    });
  });

  it("writes jobs alone while a worker of a version before packs is connected to the lanes (a rolling upgrade)", async () => {
    const prefix = `tocsin-test-${Math.random().toString(36).slice(2, 10)}`;
    const redis = new Redis(redisUrl);
    const lane0 = new Queue("alerts-lane-0", { connection: redis, prefix });
    // An older alert-service's worker: BullMQ's, without the name this version's workers have.
    const olderConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const older = new Worker("alerts-lane-0", null, { connection: olderConnection, prefix, autorun: false });
    const bulk = (tag: string) => Array.from({ length: 4 }, (_, n) => ({ id: `${tag}-${n}`, name: "n", lane: 5, data: { n } }));
    const waiting = () => redis.llen(`${prefix}:alerts-lane-5:wait`);
    const queues: BullmqJobQueue[] = [];
    try {
      await until(async () => (await lane0.getWorkers()).length === 1);
      const during = new BullmqJobQueue({ redisUrl, logger, prefix });
      queues.push(during);
      await during.addBulk(bulk("during"));
      expect(await waiting()).toBe(4); // four jobs alone: the older worker can run each
      await older.close();
      await until(async () => (await lane0.getWorkers()).length === 0);
      const after = new BullmqJobQueue({ redisUrl, logger, prefix });
      queues.push(after);
      await after.addBulk(bulk("after"));
      expect(await waiting()).toBe(5); // one pack
      await after.start(async () => "ok");
      for (const { id } of [...bulk("during"), ...bulk("after")])
        expect((await after.waitFor(id, 5, 10_000))?.state).toBe("completed");
    } finally {
      for (const q of queues) await q.close();
      await older.close();
      olderConnection.disconnect();
      await lane0.close();
      redis.disconnect();
      await dropKeys(prefix);
    }
  });
});
