import { until } from "@tocsin/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type JobOutcome, type JobQueue, type RunningJob, UnrecoverableJobError } from "./queue.js";

export interface QueueFixture {
  /** A new queue instance over the same storage (a restart when called again). */
  open(): Promise<JobQueue>;
  cleanup(): Promise<void>;
  /** The backend hands a BatchWorker several due jobs at once (else batches of one). */
  batches: boolean;
  /** One loop runs every lane (the SQLite queue's `mergeLanes`): lanes take turns, never side by side. */
  lanesMerged?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let seq = 0;
const uid = (label: string) => `${label}-${process.pid}-${Date.now()}-${++seq}`;
const numbered = (lane: number, count: number) =>
  Array.from({ length: count }, (_, n) => ({ id: uid(`lane${lane}-${n}`), name: "n", lane, data: { n } }));
const nOf = (job: RunningJob) => (job.data as { n: number }).n;

/** One behavioural suite for every JobQueue backend. */
export function describeJobQueueContract(name: string, makeFixture: () => Promise<QueueFixture>) {
  describe(`job queue contract: ${name}`, () => {
    const opened: JobQueue[] = [];
    let fixture: QueueFixture | undefined;
    const setup = async () => {
      fixture = await makeFixture();
      const q = await fixture.open();
      opened.push(q);
      return q;
    };
    afterEach(async () => {
      for (const q of opened.splice(0)) await q.close().catch(() => {});
      await fixture?.cleanup();
    });

    it("runs a job and answers waitFor with its result", async () => {
      const q = await setup();
      await q.start(async (job) => ({ echoed: job.data, attempt: job.attempt }));
      const id = uid("a");
      await q.add({ id, name: "echo", lane: 1, data: { x: 1 } });
      expect(await q.waitFor(id, 1, 5000)).toEqual({ state: "completed", result: { echoed: { x: 1 }, attempt: 1 } });
      expect(await q.waitFor(id, 1, 0)).toEqual({ state: "completed", result: { echoed: { x: 1 }, attempt: 1 } });
    });

    it("drops a wait once its signal aborts: undefined at once, long before its timeout", async () => {
      const q = await setup();
      await q.start(async () => null);
      const drop = new AbortController();
      // Not dropped, it would answer after 60 s, past the test's own timeout.
      const answer = q.waitFor(uid("never"), 2, 60_000, drop.signal);
      drop.abort();
      expect(await answer).toBeUndefined();
    });

    it("does not add a job twice under one id", async () => {
      const q = await setup();
      let runs = 0;
      await q.start(async () => ++runs);
      const id = uid("dup");
      await Promise.all([q.add({ id, name: "n", lane: 0, data: {} }), q.add({ id, name: "n", lane: 0, data: {} })]);
      await q.waitFor(id, 0, 5000);
      await q.add({ id, name: "n", lane: 0, data: {} });
      // A later job of the lane ends after anything added before it: a second run of the id too.
      const after = uid("dup-after");
      await q.add({ id: after, name: "n", lane: 0, data: {} });
      await q.waitFor(after, 0, 5000);
      expect(runs).toBe(2);
    });

    it("runs one lane strictly in order, one at a time, and lanes in parallel (or in turns when merged)", async () => {
      const q = await setup();
      const seen: Record<number, number[]> = {};
      const active: Record<number, number> = {};
      let maxActiveInLane = 0;
      let maxActiveOverall = 0;
      await q.start(async (job: RunningJob) => {
        const { lane, n } = job.data as { lane: number; n: number };
        active[lane] = (active[lane] ?? 0) + 1;
        maxActiveInLane = Math.max(maxActiveInLane, active[lane] ?? 0);
        maxActiveOverall = Math.max(
          maxActiveOverall,
          Object.values(active).reduce((a, b) => a + b, 0),
        );
        await sleep(Math.random() * 8);
        seen[lane] = [...(seen[lane] ?? []), n];
        active[lane] = (active[lane] ?? 1) - 1;
      });
      const ids: Array<[string, number]> = [];
      for (let n = 0; n < 25; n++) {
        for (const lane of [2, 3]) {
          const id = uid(`order-${lane}-${n}`);
          ids.push([id, lane]);
          await q.add({ id, name: "n", lane, data: { lane, n } });
        }
      }
      for (const [id, lane] of ids) expect((await q.waitFor(id, lane, 10_000))?.state).toBe("completed");
      const expected = Array.from({ length: 25 }, (_, i) => i);
      expect(seen[2]).toEqual(expected);
      expect(seen[3]).toEqual(expected);
      expect(maxActiveInLane).toBe(1);
      expect(maxActiveOverall).toBe(fixture?.lanesMerged ? 1 : 2);
    });

    it("adds jobs in bulk: per-lane order kept, known ids skipped", async () => {
      const q = await setup();
      const seen: Record<number, number[]> = {};
      let runs = 0;
      await q.start(async (job: RunningJob) => {
        const { lane, n } = job.data as { lane: number; n: number };
        runs++;
        await sleep(Math.random() * 3);
        seen[lane] = [...(seen[lane] ?? []), n];
      });
      const known = uid("bulk-known");
      await q.add({ id: known, name: "n", lane: 2, data: { lane: 2, n: -1 } });
      const jobs = Array.from({ length: 40 }, (_, i) => {
        const lane = i % 3 === 0 ? 3 : 2;
        return { id: uid(`bulk-${lane}-${i}`), name: "n", lane, data: { lane, n: i } };
      });
      await q.addBulk([...jobs, { id: known, name: "n", lane: 2, data: { lane: 2, n: 99 } }]);
      await q.addBulk([]);
      for (const job of jobs) expect((await q.waitFor(job.id, job.lane, 10_000))?.state).toBe("completed");
      const inLane = (lane: number) => jobs.filter((j) => j.lane === lane).map((j) => j.data.n);
      expect(seen[2]).toEqual([-1, ...inLane(2)]);
      expect(seen[3]).toEqual(inLane(3));
      // A later job of lane 2 ends after anything added before it: the known id run again too.
      const after = uid("bulk-after");
      await q.add({ id: after, name: "n", lane: 2, data: { lane: 2, n: 100 } });
      expect((await q.waitFor(after, 2, 10_000))?.state).toBe("completed");
      expect(runs).toBe(42);
    });

    it("retries a failing job, and fails an unrecoverable one at once", async () => {
      const q = await setup();
      const attempts: Record<string, number> = {};
      await q.start(async (job) => {
        attempts[job.id] = job.attempt;
        if (job.name === "bad") throw new UnrecoverableJobError("invalid input");
        if (job.attempt < 2) throw new Error("transient");
        return "ok";
      });
      const flaky = uid("flaky");
      const bad = uid("bad");
      await q.add({ id: flaky, name: "flaky", lane: 4, data: {} });
      await q.add({ id: bad, name: "bad", lane: 5, data: {} });
      expect(await q.waitFor(flaky, 4, 10_000)).toEqual({ state: "completed", result: "ok" });
      expect(await q.waitFor(bad, 5, 10_000)).toMatchObject({ state: "failed", error: "invalid input" });
      expect(attempts[flaky]).toBe(2);
      expect(attempts[bad]).toBe(1);
      expect((await q.counts()).failed).toBeGreaterThanOrEqual(1);
    });

    it("holds a lane while its failing job retries: the next job waits for it", async () => {
      const q = await setup();
      const ran: string[] = [];
      await q.start(async (job) => {
        ran.push(`${job.id}#${job.attempt}`);
        if (job.name === "flaky" && job.attempt < 3) throw new Error("transient");
      });
      const flaky = uid("held");
      const next = uid("after");
      await q.addBulk([
        { id: flaky, name: "flaky", lane: 1, data: {} },
        { id: next, name: "n", lane: 1, data: {} },
      ]);
      expect((await q.waitFor(next, 1, 10_000))?.state).toBe("completed");
      expect(ran).toEqual([`${flaky}#1`, `${flaky}#2`, `${flaky}#3`, `${next}#1`]);
    });

    it("keeps jobs added while no worker runs and runs them after a restart", async () => {
      const first = await setup();
      const ids = Array.from({ length: 10 }, () => uid("kept"));
      for (const id of ids) await first.add({ id, name: "n", lane: 6, data: { id } });
      expect((await first.counts()).pending).toBe(10);
      await first.close();
      opened.splice(opened.indexOf(first), 1);
      const second = await (fixture as QueueFixture).open();
      opened.push(second);
      const ran: string[] = [];
      await second.start(async (job) => {
        ran.push(job.id);
      });
      for (const id of ids) expect((await second.waitFor(id, 6, 10_000))?.state).toBe("completed");
      expect(ran).toEqual(ids);
      expect(await second.healthy()).toBe(true);
      expect((await second.counts()).pending).toBe(0);
    });

    it("counts a bulk's waiting jobs one by one, and none once they ran", async () => {
      const q = await setup();
      const jobs = [...numbered(5, 12), ...numbered(6, 3)];
      await q.addBulk(jobs);
      expect((await q.counts()).pending).toBe(15);
      await q.start({ maxJobs: 4, batch: async (run) => run.map(() => ({ ok: true, result: null })) });
      for (const job of jobs) expect((await q.waitFor(job.id, job.lane, 10_000))?.state).toBe("completed");
      await until(async () => (await q.counts()).pending === 0, 10_000);
      expect((await q.counts()).processed).toBe(15);
    });

    it("hands a batch worker a lane's due jobs in order, at most maxJobs at a time", async () => {
      const q = await setup();
      const jobs = numbered(2, 23);
      // Stored before the workers start, so that every job is due at once.
      await q.addBulk(jobs);
      const batches: number[][] = [];
      await q.start({
        maxJobs: 5,
        batch: async (run) => {
          batches.push(run.map(nOf));
          await sleep(Math.random() * 3);
          return run.map((job) => ({ ok: true, result: { doubled: nOf(job) * 2 } }));
        },
      });
      for (const job of jobs)
        expect(await q.waitFor(job.id, 2, 10_000)).toEqual({ state: "completed", result: { doubled: job.data.n * 2 } });
      expect(batches.flat()).toEqual(jobs.map((j) => j.data.n));
      const largest = Math.max(...batches.map((b) => b.length));
      expect(largest).toBeLessThanOrEqual(5);
      if ((fixture as QueueFixture).batches) expect(largest).toBe(5);
      expect((await q.counts()).pending).toBe(0);
    });

    it("a failure in the middle of a batch: the jobs before it end once, it retries holding the lane, the ones after wait", async () => {
      const q = await setup();
      const jobs = numbered(3, 10);
      await q.addBulk(jobs);
      const runs: string[] = [];
      await q.start({
        maxJobs: 10,
        batch: async (run) => {
          const outcomes: JobOutcome[] = [];
          for (const job of run) {
            const n = nOf(job);
            runs.push(`${n}/${job.attempt}`);
            if (n === 4 && job.attempt === 1) return [...outcomes, { ok: false, error: new Error("transient") }];
            if (n === 7) return [...outcomes, { ok: false, error: new UnrecoverableJobError("invalid input") }];
            outcomes.push({ ok: true, result: { n } });
          }
          return outcomes;
        },
      });
      for (const job of jobs)
        expect(await q.waitFor(job.id, 3, 10_000)).toEqual(
          job.data.n === 7 ? { state: "failed", error: "invalid input" } : { state: "completed", result: { n: job.data.n } },
        );
      // 4 failed once and held the lane: nothing after it ran before its retry; the unrecoverable
      // 7 ran once and did not hold the lane.
      expect(runs).toEqual(["0/1", "1/1", "2/1", "3/1", "4/1", "4/2", "5/1", "6/1", "7/1", "8/1", "9/1"]);
      // A retry holds the lane (4 above): a later job of the lane ends after any retry of 7 too.
      const after = { id: uid("lane3-after"), name: "n", lane: 3, data: { n: 10 } };
      await q.add(after);
      expect(await q.waitFor(after.id, 3, 10_000)).toEqual({ state: "completed", result: { n: 10 } });
      expect(runs).toHaveLength(12);
    });

    it("answers waitFor with undefined when the job does not end in time", async () => {
      const q = await setup();
      await q.start(async () => sleep(500));
      const id = uid("slow");
      await q.add({ id, name: "n", lane: 7, data: {} });
      expect(await q.waitFor(id, 7, 50)).toBeUndefined();
      expect((await q.waitFor(id, 7, 5000))?.state).toBe("completed");
    });
  });
}
