import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { silentLogger } from "@tocsin/core";
import { until } from "@tocsin/testing";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { JobOutcome, QueuedJob, RunningJob } from "./queue.js";
import { PACK_MAX } from "./sqlite/packs.js";
import { SqliteJobQueue } from "./sqlite/sqlite-job-queue.js";

const logger = silentLogger();
const dirs: string[] = [];
const queues: SqliteJobQueue[] = [];
afterEach(async () => {
  for (const q of queues.splice(0)) await q.close().catch(() => {});
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fileOf(): string {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-packs-"));
  dirs.push(dir);
  return join(dir, "alert-queue.db");
}
function open(file: string, extra: Partial<ConstructorParameters<typeof SqliteJobQueue>[0]> = {}): SqliteJobQueue {
  const q = new SqliteJobQueue({ file, logger, synchronous: "NORMAL", ...extra });
  queues.push(q);
  return q;
}
const jobsOf = (lane: number, count: number, from = 0): QueuedJob[] =>
  Array.from({ length: count }, (_, i) => ({ id: `l${lane}-j${from + i}`, name: "n", lane, data: { n: from + i } }));
const nOf = (job: RunningJob) => (job.data as { n: number }).n;
/** The rows of the file, read on a connection of the test's own. */
function rowsOf(file: string): Array<{ name: string; units: number; done: number; status: string; data: string }> {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT name, units, done, status, data FROM jobs ORDER BY seq").all() as never;
  } finally {
    db.close();
  }
}
const echo = {
  maxJobs: 32,
  batch: async (run: RunningJob[]) => run.map((job) => ({ ok: true, result: { n: nOf(job) } }) as const),
};
/** `echo`, noting what it ran (as `note` writes each job) in `seen`. */
function echoInto<T>(seen: T[], note: (job: RunningJob) => T, maxJobs = 32) {
  return {
    maxJobs,
    batch: async (run: RunningJob[]) => {
      seen.push(...run.map(note));
      return echo.batch(run);
    },
  };
}

describe("local (SQLite) queue packs", () => {
  it("stores a lane's jobs of one commit as one row, a lone job as its own, and ends a pack in one row with its data dropped", async () => {
    const file = fileOf();
    const q = open(file);
    await q.addBulk([...jobsOf(1, 12), ...jobsOf(2, 1)]);
    expect(rowsOf(file).map((r) => [r.name, r.units])).toEqual([
      ["tocsin-pack", 12],
      ["n", 1],
    ]);
    expect((await q.counts()).pending).toBe(13);
    await q.start(echo);
    for (const job of [...jobsOf(1, 12), ...jobsOf(2, 1)])
      expect(await q.waitFor(job.id, job.lane, 5000)).toEqual({
        state: "completed",
        result: { n: (job.data as { n: number }).n },
      });
    await until(async () => (await q.counts()).pending === 0);
    const [pack] = rowsOf(file);
    expect(pack).toMatchObject({ status: "completed", done: 12, data: "" });
  });

  it(`splits a lane's commit into packs of at most ${PACK_MAX}, in order`, async () => {
    const file = fileOf();
    const q = open(file);
    const jobs = jobsOf(3, PACK_MAX * 2 + 5);
    await q.addBulk(jobs);
    expect(rowsOf(file).map((r) => r.units)).toEqual([PACK_MAX, PACK_MAX, 5]);
    const seen: number[] = [];
    await q.start(echoInto(seen, nOf));
    await until(() => seen.length === jobs.length);
    expect(seen).toEqual(jobs.map((_, n) => n));
  });

  it("skips a packed id added again, before and after it ran, alone or in a later pack", async () => {
    const file = fileOf();
    const q = open(file);
    await q.addBulk(jobsOf(4, 5));
    await q.addBulk([...jobsOf(4, 3, 3), ...jobsOf(4, 2, 3)]);
    const runs: number[] = [];
    await q.start(echoInto(runs, nOf));
    await until(() => runs.length >= 6);
    await q.add({ id: "l4-j2", name: "n", lane: 4, data: { n: 2 } });
    await q.addBulk(jobsOf(4, 8));
    await until(() => runs.length >= 8);
    await until(async () => (await q.counts()).pending === 0);
    expect(runs).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("keeps a pack's progress across a restart: ended jobs keep their results, the job that failed runs again first", async () => {
    const file = fileOf();
    // The retry is due 300 ms after the failure: after the restart, not before it.
    const first = open(file, { backoff: () => 300 });
    const jobs = jobsOf(5, 12);
    await first.addBulk(jobs);
    const runs: string[] = [];
    await first.start({
      maxJobs: 5,
      batch: async (run) => {
        const outcomes: JobOutcome[] = [];
        for (const job of run) {
          runs.push(`${nOf(job)}/${job.attempt}`);
          if (nOf(job) === 7) return [...outcomes, { ok: false, error: new Error("transient") }];
          outcomes.push({ ok: true, result: { n: nOf(job) } });
        }
        return outcomes;
      },
    });
    await until(() => runs.length === 8);
    await first.close();
    expect(rowsOf(file)[0]).toMatchObject({ status: "pending", done: 7, units: 12 });

    const second = open(file);
    expect((await second.counts()).pending).toBe(5);
    expect(await second.waitFor("l5-j3", 5, 0)).toEqual({ state: "completed", result: { n: 3 } });
    await second.start(echoInto(runs, (j) => `${nOf(j)}/${j.attempt}`, 5));
    expect(await second.waitFor("l5-j11", 5, 5000)).toEqual({ state: "completed", result: { n: 11 } });
    expect(runs).toEqual(["0/1", "1/1", "2/1", "3/1", "4/1", "5/1", "6/1", "7/1", "7/2", "8/1", "9/1", "10/1", "11/1"]);
  });

  it("sweeps a finished pack's jobs with its row", async () => {
    const file = fileOf();
    const q = open(file, { retainMs: 0, sweepEveryMs: 20 });
    await q.addBulk(jobsOf(6, 4));
    await q.start(echo);
    expect((await q.waitFor("l6-j0", 6, 5000))?.state).toBe("completed");
    await until(() => rowsOf(file).length === 0);
    const db = new Database(file, { readonly: true });
    const { n } = db.prepare("SELECT COUNT(*) AS n FROM job_units").get() as { n: number };
    db.close();
    expect(n).toBe(0);
    expect(await q.waitFor("l6-j0", 6, 0)).toBeUndefined();
  });

  it("opens a file written before packs: gains the columns, runs its rows, and packs what is added next", async () => {
    const file = fileOf();
    const old = new Database(file);
    old.pragma("journal_mode = WAL");
    old.exec(`CREATE TABLE jobs (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
      lane INTEGER NOT NULL, data TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,
      run_after INTEGER NOT NULL DEFAULT 0, result TEXT, error TEXT, created_at INTEGER NOT NULL, finished_at INTEGER);
      CREATE INDEX jobs_pending ON jobs (lane, seq) WHERE status = 'pending';`);
    const insert = old.prepare("INSERT INTO jobs (id, name, lane, data, created_at) VALUES (?, 'n', 7, ?, 0)");
    for (const n of [0, 1]) insert.run(`l7-j${n}`, JSON.stringify({ n }));
    old.close();

    const q = open(file);
    expect((await q.counts()).pending).toBe(2);
    await q.addBulk([...jobsOf(7, 2), ...jobsOf(7, 3, 2)]);
    expect(rowsOf(file).map((r) => [r.name, r.units])).toEqual([
      ["n", 1],
      ["n", 1],
      ["tocsin-pack", 3],
    ]);
    const seen: number[] = [];
    await q.start(echoInto(seen, nOf));
    expect(await q.waitFor("l7-j4", 7, 5000)).toEqual({ state: "completed", result: { n: 4 } });
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it("packs while another thread's connection commits to the file: no add fails (its reads and writes are one IMMEDIATE transaction)", async () => {
    const file = fileOf();
    const q = open(file);
    await q.add({ id: "create", name: "n", lane: 0, data: {} });
    // Another connection in another thread (as the processing thread's) committing all the while.
    const writer = new Worker(
      `const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve("better-sqlite3"))});
       const { parentPort } = require("node:worker_threads");
       const db = new Database(${JSON.stringify(file)}, { timeout: 5000 });
       const insert = db.prepare("INSERT INTO jobs (id, name, lane, data, created_at) VALUES (?, 'n', 9, '{}', 0)");
       let n = 0, stop = false;
       parentPort.on("message", () => { stop = true; });
       (function loop() { for (let i = 0; i < 20; i++) insert.run("w" + n++); if (n === 20) parentPort.postMessage("writing"); if (stop) { db.close(); parentPort.postMessage(n); } else setImmediate(loop); })();`,
      { eval: true },
    );
    await new Promise((resolve) => writer.once("message", resolve));
    try {
      for (let round = 0; round < 200; round++) await q.addBulk(jobsOf(round % 8, 6, round * 6));
    } finally {
      const written = new Promise((resolve) => writer.once("message", resolve));
      writer.postMessage("stop");
      expect(await written).toBeGreaterThan(0);
      await writer.terminate();
    }
    expect((await q.counts()).pending).toBeGreaterThanOrEqual(1 + 200 * 6);
  });
});
