import { describe, expect, inject, it } from "vitest";
import { BullmqJobQueue } from "./bullmq-queue.js";
import { logger, redisHelpers } from "./queue.int.fixtures.js";
import { type JobOutcome, UnrecoverableJobError } from "./queue.js";

const redisUrl = inject("redisUrl");
const { dropKeys } = redisHelpers(redisUrl);
describe.skipIf(!redisUrl)("bullmq", () => {
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
});
