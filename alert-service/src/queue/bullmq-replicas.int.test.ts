import { silentLogger } from "@tocsin/core";
import { until } from "@tocsin/testing";
import { Redis } from "ioredis";
import { afterEach, describe, expect, inject, it } from "vitest";
import { BullmqJobQueue } from "./bullmq-queue.js";
import type { BatchWorker, JobOutcome, RunningJob } from "./queue.js";

const redisUrl = inject("redisUrl");
if (!redisUrl) console.warn("[bullmq replicas] Redis unavailable: the two-replica lane test is SKIPPED");

const logger = silentLogger();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Two BullmqJobQueue instances on one Redis and one prefix are two alert-service replicas: each
 * has its own connections and its own worker per lane, as separate processes would.
 */
describe.skipIf(!redisUrl)("bullmq ordered lanes across two replicas", () => {
  const prefix = `tocsin-replicas-${Math.random().toString(36).slice(2, 10)}`;
  const queues: BullmqJobQueue[] = [];
  afterEach(async () => {
    for (const q of queues.splice(0)) await q.close().catch(() => {});
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it("runs a lane's jobs one at a time in the order added, whichever replica adds or runs them", async () => {
    const retry = { maxAttempts: 5, backoff: () => 30 };
    const [a, b] = [0, 1].map(() => new BullmqJobQueue({ redisUrl, logger, prefix, retry }));
    queues.push(a as BullmqJobQueue, b as BullmqJobQueue);
    const started: number[] = [];
    const finished: number[] = [];
    const ranBy = new Set<string>();
    let active = 0;
    let maxActive = 0;
    const runner = (replica: string) => async (job: RunningJob) => {
      const { n } = job.data as { n: number };
      active++;
      maxActive = Math.max(maxActive, active);
      started.push(n);
      try {
        await sleep(Math.random() * 6);
        // Every fifth job fails twice: its retries must hold the lane in both replicas.
        if (n % 5 === 2 && job.attempt < 3) throw new Error("transient");
        finished.push(n);
        ranBy.add(replica);
      } finally {
        active--;
      }
    };
    await a?.start(runner("a"));
    await b?.start(runner("b"));
    const lane = 3;
    const ids: string[] = [];
    let n = 0;
    // Rounds of jobs added alternately through both replicas; between rounds both workers are
    // idle, so the next round is picked up by whichever replica Redis wakes first.
    for (let round = 0; round < 8; round++) {
      for (let i = 0; i < 5; i++, n++) {
        const id = `lane-job-${n}`;
        ids.push(id);
        await (n % 2 === 0 ? a : b)?.add({ id, name: "n", lane, data: { n } });
      }
      const last = ids.at(-1) as string;
      expect((await a?.waitFor(last, lane, 20_000))?.state).toBe("completed");
    }
    await until(() => finished.length === n, 20_000);
    const order = Array.from({ length: n }, (_, i) => i);
    expect(finished).toEqual(order);
    // Retries run straight after their own failure, before anything else of the lane.
    expect(started.filter((x, i) => started[i - 1] !== x)).toEqual(order);
    expect(maxActive).toBe(1);
    expect([...ranBy].sort()).toEqual(["a", "b"]);
  });

  it("hands a lane's waiting jobs as batches to one replica at a time, in order, each job ending once", async () => {
    const retry = { maxAttempts: 5, backoff: () => 30 };
    const [a, b] = [0, 1].map(() => new BullmqJobQueue({ redisUrl, logger, prefix, retry }));
    queues.push(a as BullmqJobQueue, b as BullmqJobQueue);
    const finished: number[] = [];
    const started: number[] = [];
    let active = 0;
    let maxActive = 0;
    let largest = 0;
    const worker: BatchWorker = {
      maxJobs: 8,
      batch: async (jobs) => {
        active++;
        maxActive = Math.max(maxActive, active);
        largest = Math.max(largest, jobs.length);
        try {
          await sleep(Math.random() * 6);
          const outcomes: JobOutcome[] = [];
          for (const job of jobs) {
            const { n } = job.data as { n: number };
            started.push(n);
            // Every seventh job fails once, wherever it sits in a batch: it holds the lane.
            if (n % 7 === 3 && job.attempt < 2) return [...outcomes, { ok: false, error: new Error("transient") }];
            finished.push(n);
            outcomes.push({ ok: true, result: { n } });
          }
          return outcomes;
        } finally {
          active--;
        }
      },
    };
    await a?.start(worker);
    await b?.start(worker);
    const lane = 4;
    const jobs: Array<{ id: string; n: number }> = [];
    for (let round = 0; round < 6; round++) {
      const added = Array.from({ length: 20 }, (_, i) => ({ id: `batch-job-${round * 20 + i}`, n: round * 20 + i }));
      jobs.push(...added);
      await (round % 2 === 0 ? a : b)?.addBulk(added.map(({ id, n }) => ({ id, name: "n", lane, data: { n } })));
    }
    for (const { id, n } of jobs) expect(await b?.waitFor(id, lane, 20_000)).toEqual({ state: "completed", result: { n } });
    const order = jobs.map((j) => j.n);
    expect(finished).toEqual(order);
    expect(started.filter((x, i) => started[i - 1] !== x)).toEqual(order);
    expect(maxActive).toBe(1);
    expect(largest).toBeGreaterThan(1);
    expect((await (a as BullmqJobQueue).counts()).pending).toBe(0);
  });

  it("runs different lanes in parallel", async () => {
    const [a, b] = [0, 1].map(() => new BullmqJobQueue({ redisUrl, logger, prefix }));
    queues.push(a as BullmqJobQueue, b as BullmqJobQueue);
    let active = 0;
    let maxActive = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const runner = async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      if (maxActive >= 2) release();
      await gate;
      active--;
    };
    await a?.start(runner);
    await b?.start(runner);
    await a?.add({ id: "par-1", name: "n", lane: 1, data: {} });
    await b?.add({ id: "par-2", name: "n", lane: 2, data: {} });
    for (const [id, lane] of [
      ["par-1", 1],
      ["par-2", 2],
    ] as const)
      expect((await a?.waitFor(id, lane, 20_000))?.state).toBe("completed");
    expect(maxActive).toBe(2);
  });
});
