import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "@tocsin/store";
import { until } from "@tocsin/testing";
import { describe, expect, it } from "vitest";
import { describeJobQueueContract } from "./contract.js";
import { logger } from "./queue.int.fixtures.js";
import type { JobOutcome } from "./queue.js";
import { SqliteJobQueue } from "./sqlite/sqlite-job-queue.js";

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
