import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@tocsin/core";
import { openSqlite } from "@tocsin/store";
import { until } from "@tocsin/testing";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { describe, expect, inject, it } from "vitest";
import { BullmqJobQueue } from "./bullmq-queue.js";
import { describeJobQueueContract } from "./contract.js";
import { type JobOutcome, UnrecoverableJobError } from "./queue.js";
import { SqliteJobQueue } from "./sqlite/sqlite-job-queue.js";

const logger = silentLogger();

describeJobQueueContract("local (SQLite)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-queue-"));
  return {
    open: async () => new SqliteJobQueue({ file: join(dir, "alert-queue.db"), logger }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    batches: true,
  };
});

describeJobQueueContract("local (SQLite), one loop for every lane", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-queue-"));
  return {
    open: async () => new SqliteJobQueue({ file: join(dir, "alert-queue.db"), logger, mergeLanes: true }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    batches: true,
    lanesMerged: true,
  };
});

describe("local (SQLite) queue housekeeping", () => {
  it("sweeps jobs that finished more than retainMs ago, never pending ones", async () => {
    const q = new SqliteJobQueue({ file: ":memory:", logger, retainMs: 0, sweepEveryMs: 20, backoff: () => 60_000 });
    await q.add({ id: "held", name: "n", lane: 1, data: {} });
    await q.start(async (job) => {
      if (job.id === "held") throw new Error("keeps failing");
      return "done";
    });
    await q.add({ id: "done", name: "n", lane: 0, data: {} });
    expect(await q.waitFor("done", 0, 5000)).toEqual({ state: "completed", result: "done" });
    await until(async () => (await q.waitFor("done", 0, 0)) === undefined);
    expect(await q.counts()).toMatchObject({ pending: 1 });
    await q.close();
  });
});

describe("local (SQLite) queue durability", () => {
  const onFile = () => {
    const dir = mkdtempSync(join(tmpdir(), "tocsin-queue-"));
    return { file: join(dir, "alert-queue.db"), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  };

  it("resolves an add only once the WAL holding its commit is synced; adds committed meanwhile wait for the next sync", async () => {
    const { file, cleanup } = onFile();
    const syncs: Array<() => void> = [];
    const q = new SqliteJobQueue({ file, logger, syncWal: (done) => syncs.push(() => done()) });
    const settled: string[] = [];
    const first = q.add({ id: "a", name: "n", lane: 0, data: {} }).then(() => settled.push("a"));
    await until(() => syncs.length === 1);
    // Committed (another connection sees it) but not yet durable: not resolved.
    const reader = new SqliteJobQueue({ file, logger, synchronous: "NORMAL" });
    expect(await reader.counts()).toMatchObject({ pending: 1 });
    const second = q.add({ id: "b", name: "n", lane: 0, data: {} }).then(() => settled.push("b"));
    await until(async () => (await reader.counts()).pending === 2);
    expect(syncs).toHaveLength(1);
    expect(settled).toEqual([]);
    syncs[0]?.();
    await first;
    expect(settled).toEqual(["a"]);
    await until(() => syncs.length === 2);
    syncs[1]?.();
    await second;
    expect(settled).toEqual(["a", "b"]);
    await reader.close();
    await q.close();
    cleanup();
  });

  it("rejects the adds of a commit whose WAL sync failed with UNAVAILABLE (QUEUE_UNAVAILABLE)", async () => {
    const { file, cleanup } = onFile();
    const q = new SqliteJobQueue({ file, logger, syncWal: (done) => done(new Error("EIO: i/o error, fdatasync")) });
    await expect(q.add({ id: "x", name: "n", lane: 0, data: {} })).rejects.toMatchObject({
      code: "UNAVAILABLE",
      reason: "QUEUE_UNAVAILABLE",
    });
    await q.close();
    cleanup();
  });

  it("waits for a write lock another connection holds without stopping the event loop; adds made meanwhile follow in order", async () => {
    const { file, cleanup } = onFile();
    const q = new SqliteJobQueue({ file, logger });
    await q.add({ id: "before", name: "n", lane: 0, data: {} });
    // The processing thread ending a batch holds the file like this.
    const holder = openSqlite(file);
    holder.exec("BEGIN IMMEDIATE");
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 1);
    const settled: string[] = [];
    const first = q.add({ id: "a", name: "n", lane: 0, data: {} }).then(() => settled.push("a"));
    await until(() => ticks >= 3);
    const second = q.add({ id: "b", name: "n", lane: 0, data: {} }).then(() => settled.push("b"));
    await until(() => ticks >= 6);
    expect(settled).toEqual([]);
    holder.exec("COMMIT");
    await Promise.all([first, second]);
    clearInterval(ticking);
    const ran: string[] = [];
    await q.start(async (job) => {
      ran.push(job.id);
      return null;
    });
    await until(() => ran.length === 3);
    expect(ran).toEqual(["before", "a", "b"]);
    holder.close();
    await q.close();
    cleanup();
  });

  it("syncs the real WAL file (fdatasync) and closes it with the queue", async () => {
    const { file, cleanup } = onFile();
    const q = new SqliteJobQueue({ file, logger });
    await Promise.all(Array.from({ length: 20 }, (_, n) => q.add({ id: `j${n}`, name: "n", lane: n % 8, data: { n } })));
    expect(await q.counts()).toMatchObject({ pending: 20 });
    await q.close();
    cleanup();
  });
});

describe("local (SQLite) queue failures", () => {
  it("rejects a job it cannot store with UNAVAILABLE (QUEUE_UNAVAILABLE), not a driver error", async () => {
    const q = new SqliteJobQueue({ file: ":memory:", logger });
    await q.close();
    await expect(q.add({ id: "x", name: "n", lane: 0, data: {} })).rejects.toMatchObject({
      code: "UNAVAILABLE",
      reason: "QUEUE_UNAVAILABLE",
      retryAfterSeconds: 5,
    });
  });
});

describe("local (SQLite) queue, one loop for every lane (mergeLanes)", () => {
  const nOf = (job: { data: unknown }) => (job.data as { key: string }).key;
  const job = (lane: number, n: number) => ({ id: `l${lane}-${n}`, name: "n", lane, data: { key: `${lane}.${n}` } });
  const lanesOf = (lanes: number[], per: number) => lanes.flatMap((lane) => Array.from({ length: per }, (_, n) => job(lane, n)));
  /** Runs the queue's jobs to the end with a batch worker that completes them all: the batches it was handed. */
  const batchesOf = async (q: SqliteJobQueue, maxJobs: number) => {
    const batches: string[][] = [];
    await q.start({
      maxJobs,
      batch: async (run) => {
        batches.push(run.map(nOf));
        return run.map(() => ({ ok: true, result: null }));
      },
    });
    await until(async () => (await q.counts()).pending === 0);
    await q.close();
    return batches;
  };

  it("hands one batch the due jobs of several lanes, each lane's in order, at most maxJobs", async () => {
    const q = new SqliteJobQueue({ file: ":memory:", logger, mergeLanes: true });
    await q.addBulk(lanesOf([1, 2, 3], 4));
    const batches = await batchesOf(q, 10);
    expect(batches.flat().sort()).toEqual(
      lanesOf([1, 2, 3], 4)
        .map((j) => j.data.key)
        .sort(),
    );
    // The first batch holds whole lanes while they fit: two lanes of four (a third would pass 10).
    expect(batches[0]).toHaveLength(8);
    expect(new Set(batches[0]?.map((key) => key.split(".")[0])).size).toBe(2);
    for (const lane of ["1", "2", "3"]) {
      const order = batches.flat().filter((key) => key.startsWith(`${lane}.`));
      expect(order).toEqual([0, 1, 2, 3].map((n) => `${lane}.${n}`));
    }
  });

  it("takes lanes oldest job first: a bulk's lanes in the order its jobs came", async () => {
    const q = new SqliteJobQueue({ file: ":memory:", logger, mergeLanes: true });
    await q.addBulk([job(6, 0), job(2, 0), job(6, 1), job(4, 0), job(2, 1)]);
    await q.add(job(0, 0));
    expect((await batchesOf(q, 16)).flat()).toEqual(["6.0", "6.1", "2.0", "2.1", "4.0", "0.0"]);
  });

  it("a failing job holds its own lane only: the other lanes' jobs run meanwhile", async () => {
    const q = new SqliteJobQueue({ file: ":memory:", logger, mergeLanes: true, backoff: () => 60_000 });
    await q.addBulk(lanesOf([1, 2], 3));
    const ran: string[] = [];
    await q.start({
      maxJobs: 16,
      batch: async (run) => {
        const outcomes: JobOutcome[] = [];
        for (const job of run) {
          // Lane 1's head fails (retried in a minute): the batch stops there, as a batch worker does.
          if (nOf(job) === "1.0") return [...outcomes, { ok: false, error: new Error("transient") }];
          ran.push(nOf(job));
          outcomes.push({ ok: true, result: null });
        }
        return outcomes;
      },
    });
    await until(() => ran.length >= 3);
    expect(await q.counts()).toMatchObject({ pending: 3 });
    await q.close();
    expect(ran.filter((key) => key.startsWith("2."))).toEqual(["2.0", "2.1", "2.2"]);
    expect(ran.filter((key) => key.startsWith("1."))).toEqual([]);
  });

  it("wakes its one loop for a job committed to any lane", async () => {
    const q = new SqliteJobQueue({ file: ":memory:", logger, mergeLanes: true });
    const ran: string[] = [];
    await q.start(async (job) => {
      ran.push(nOf(job));
    });
    for (const lane of [0, 5, 7]) await q.add({ id: `w${lane}`, name: "n", lane, data: { key: `${lane}.0` } });
    expect((await q.waitFor("w7", 7, 5000))?.state).toBe("completed");
    await until(() => ran.length === 3);
    await q.close();
    expect(ran.sort()).toEqual(["0.0", "5.0", "7.0"]);
  });
});

const redisUrl = inject("redisUrl");

/** Removes a test's keys (its own prefix) from the shared Redis. */
async function dropKeys(prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
}
/** A BullMQ queue and a Redis connection on a prefix of the test's own, both closed and its keys removed after `test`. */
async function onOwnPrefix(test: (t: { prefix: string; q: BullmqJobQueue; redis: Redis }) => Promise<void>): Promise<void> {
  const prefix = `tocsin-test-${Math.random().toString(36).slice(2, 10)}`;
  const q = new BullmqJobQueue({ redisUrl, logger, prefix });
  const redis = new Redis(redisUrl);
  try {
    await test({ prefix, q, redis });
  } finally {
    await q.close();
    redis.disconnect();
    await dropKeys(prefix);
  }
}
if (!redisUrl) console.warn("[alert queue] Redis unavailable: the BullMQ contract run is SKIPPED");
describe.skipIf(!redisUrl)("bullmq", () => {
  describeJobQueueContract("bullmq (Redis)", async () => {
    const prefix = `tocsin-test-${Math.random().toString(36).slice(2, 10)}`;
    return {
      open: async () => new BullmqJobQueue({ redisUrl, logger, prefix }),
      batches: true,
      cleanup: async () => {
        await dropKeys(prefix);
      },
    };
  });

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

  it("wakes a waiter on its id announced, in this version's form or an older one's, and answers with the end stored in Redis", async () => {
    await onOwnPrefix(async ({ prefix, q, redis }) => {
      const channel = `${prefix}:alert-jobs:done`;
      const stored = (id: string, n: number) =>
        redis.hset(`${prefix}:alerts-lane-5:tocsin-done`, id, JSON.stringify({ state: "completed", result: { n } }));
      const subscribed = async () => ((await redis.pubsub("NUMSUB", channel)) as [string, number])[1] === 1;
      // The waiter's first look at the done hash made before the end is stored, so that only an
      // announcement can make it look again: once subscribed, a waitFor sends that look within the
      // turn; `counts` reads on the same connection after it, so its answer comes after the look's.
      const waiting = async (id: string) => {
        const wait = q.waitFor(id, 5, 10_000);
        await new Promise((resolve) => setImmediate(resolve));
        await q.counts();
        return { wait }; // not the promise itself: an async function's answer would wait for it
      };
      void q.waitFor("first", 5, 1); // subscribes
      await until(subscribed);
      const now = (await waiting("now")).wait;
      await redis.publish(channel, "not json"); // ignored
      await stored("now", 1);
      await redis.publish(channel, JSON.stringify(["other", "now"]));
      expect(await now).toEqual({ state: "completed", result: { n: 1 } });
      // An older version announced results; the waiter reads what Redis holds all the same.
      const older = (await waiting("older")).wait;
      await stored("older", 2);
      await redis.publish(channel, JSON.stringify([{ id: "older", result: { state: "completed", result: { n: 0 } } }]));
      expect(await older).toEqual({ state: "completed", result: { n: 2 } });
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

  it("hands an unordered queue's batch worker the jobs behind the one BullMQ handed out, each ending once", async () => {
    const prefix = `tocsin-test-${Math.random().toString(36).slice(2, 10)}`;
    const retry = { maxAttempts: 5, backoff: () => 20 };
    const q = new BullmqJobQueue({ redisUrl, logger, prefix, lanes: 1, ordered: false, concurrency: 4, retry });
    const jobs = Array.from({ length: 60 }, (_, n) => ({ id: `timer-${n}`, name: "n", lane: 0, data: { n } }));
    await q.addBulk(jobs);
    const runs = new Map<number, number[]>();
    let largest = 0;
    try {
      await q.start({
        maxJobs: 10,
        batch: async (run) => {
          largest = Math.max(largest, run.length);
          const outcomes: JobOutcome[] = [];
          for (const job of run) {
            const { n } = job.data as { n: number };
            runs.set(n, [...(runs.get(n) ?? []), job.attempt]);
            if (n === 17) return [...outcomes, { ok: false, error: new UnrecoverableJobError("invalid input") }];
            if (n % 10 === 5 && job.attempt < 2) return [...outcomes, { ok: false, error: new Error("transient") }];
            outcomes.push({ ok: true, result: { n } });
          }
          return outcomes;
        },
      });
      for (const { id, data } of jobs)
        expect(await q.waitFor(id, 0, 10_000)).toEqual(
          data.n === 17 ? { state: "failed", error: "invalid input" } : { state: "completed", result: { n: data.n } },
        );
      // Read again from Redis, not announced: a job that failed once and then completed reads as completed.
      for (const { id, data } of jobs)
        expect(await q.waitFor(id, 0, 0)).toEqual(
          data.n === 17 ? { state: "failed", error: "invalid input" } : { state: "completed", result: { n: data.n } },
        );
      for (const { data } of jobs) expect(runs.get(data.n)).toEqual(data.n % 10 === 5 ? [1, 2] : [1]);
      expect(largest).toBeGreaterThan(1);
      expect((await q.counts()).pending).toBe(0);
    } finally {
      await q.close();
      await dropKeys(prefix);
    }
  });

  it("reads an unordered job that failed once and then completed as completed, from Redis as from its announcement", async () => {
    const prefix = `tocsin-test-${Math.random().toString(36).slice(2, 10)}`;
    const retry = { maxAttempts: 3, backoff: () => 10 };
    const q = new BullmqJobQueue({ redisUrl, logger, prefix, lanes: 1, ordered: false, retry });
    try {
      await q.start(async (job) => {
        if (job.attempt < 2) throw new Error("transient");
        return "ok";
      });
      await q.add({ id: "flaky", name: "n", lane: 0, data: {} });
      expect(await q.waitFor("flaky", 0, 10_000)).toEqual({ state: "completed", result: "ok" });
      // No announcement now: read from the job BullMQ kept, which still holds the failed attempt's reason.
      expect(await q.waitFor("flaky", 0, 0)).toEqual({ state: "completed", result: "ok" });
    } finally {
      await q.close();
      await dropKeys(prefix);
    }
  });

  // "Fast" is bounded by the queue's add timeout (1.5 s), not by a clock here: a hang fails the test timeout.
  it("fails with UNAVAILABLE when Redis is unreachable", async () => {
    const q = new BullmqJobQueue({ redisUrl: "redis://127.0.0.1:1", logger, prefix: "tocsin-down" });
    await expect(q.add({ id: "x", name: "n", lane: 0, data: {} })).rejects.toMatchObject({
      code: "UNAVAILABLE",
      reason: "QUEUE_UNAVAILABLE",
      retryAfterSeconds: 5,
    });
    expect(await q.healthy()).toBe(false);
    await q.close();
  });
});
