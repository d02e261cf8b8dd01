import { EventEmitter } from "node:events";
import { closeSync, fdatasync, openSync } from "node:fs";
import { type Logger, unavailable } from "@tocsin/core";
import { openSqlite, prepared } from "@tocsin/store";
import type { Database as Db } from "better-sqlite3";
import {
  asBatchWorker,
  type Backoff,
  type BatchWorker,
  backoffMs,
  DEFAULT_LANES,
  type JobOutcome,
  type JobQueue,
  type JobResult,
  type JobRunner,
  MAX_ATTEMPTS,
  type QueuedJob,
  UnrecoverableJobError,
} from "./queue.js";

export interface LocalQueueOptions {
  /** SQLite file (`${DATA_DIR}/alert-queue.db`), or `:memory:` (not durable; tests only). */
  file: string;
  logger: Logger;
  lanes?: number;
  maxAttempts?: number;
  /**
   * `FULL` (default): a job survives a power loss once `add` resolved: the WAL is synced to disk
   * after each group commit, off the event loop (see `syncWal`). `NORMAL`: survives a crash or
   * SIGKILL of the process, not of the machine. This applies to `add`; the bookkeeping writes of
   * running jobs (attempt counts, results) are never synced on their own (see the constructor).
   */
  synchronous?: "FULL" | "NORMAL";
  /**
   * How the WAL is made durable for `synchronous: FULL` (default: `fdatasync` of `<file>-wal` on
   * libuv's thread pool). Tests hold or fail it to see that `add` waits for it.
   */
  syncWal?: (done: (err?: Error | null) => void) => void;
  /**
   * false: this connection never checkpoints the WAL into the database file; another connection
   * to the file does (in the processing thread, whose job-end commits run SQLite's automatic
   * checkpoints), so that the thread that accepts is not held by one (default true).
   */
  checkpoints?: boolean;
  /** How long finished jobs stay (dedupe window and `waitFor` answers). */
  retainMs?: number;
  /** How often finished jobs older than `retainMs` are deleted (default every minute). */
  sweepEveryMs?: number;
  backoff?: Backoff;
  /**
   * true (default): a lane runs its jobs strictly in order, a failing job holding it. false: a
   * lane runs whichever of its jobs is due first, so delayed and retrying jobs hold nothing
   * (the mail queue).
   */
  ordered?: boolean;
  /**
   * Told of the lanes of every group commit, once it is durable: another thread that runs this
   * file's lanes (see `wake`) learns of new jobs without polling.
   */
  onCommit?: (lanes: number[]) => void;
  /** Told of the jobs that ended in each batch, once recorded: the thread that waits for them (see `ended`). */
  onEnded?: (ended: EndedJob[]) => void;
}

/** A job that ended, as told between threads (see `LocalQueueOptions.onEnded`). */
export interface EndedJob {
  id: string;
  result: JobResult;
}

interface JobRow {
  seq: number;
  id: string;
  name: string;
  data: string;
  attempts: number;
  run_after: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  lane INTEGER NOT NULL,
  data TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  run_after INTEGER NOT NULL DEFAULT 0,
  result TEXT,
  error TEXT,
  created_at INTEGER NOT NULL,
  finished_at INTEGER
);
DROP INDEX IF EXISTS jobs_lane_pending;
DROP INDEX IF EXISTS jobs_finished;
CREATE INDEX IF NOT EXISTS jobs_pending ON jobs (lane, seq) WHERE status = 'pending';
`;
// Only pending jobs are indexed (beside the id): an add writes one index entry besides the id's,
// an end removes it. Finished jobs are swept by seq ranges (see sweep), not through an index.

/** The port's promise: a job that could not be stored is UNAVAILABLE, never a driver error. */
function queueUnavailable(err: unknown) {
  return unavailable("QUEUE_UNAVAILABLE", "The alert queue is unavailable, try again later", err, 5);
}

/**
 * The durable in-process queue: a job is committed to SQLite and its WAL synced to disk before
 * `add` resolves, each lane runs its jobs strictly in order one at a time (or, with a
 * BatchWorker, its due jobs in order in batches of up to `maxJobs`, whose ends are recorded in one
 * transaction), and jobs not finished when the process died run again on the next start. A failing job is retried with
 * backoff and holds its lane meanwhile, so order within a lane is never broken.
 */
export class LocalJobQueue implements JobQueue {
  private readonly db: Db;
  private readonly lanes: number;
  private readonly maxAttempts: number;
  private readonly retainMs: number;
  private readonly events = new EventEmitter();
  private readonly wakers = new Map<number, () => void>();
  private loops: Promise<void>[] = [];
  private running = false;
  private sweeper: NodeJS.Timeout | undefined;
  /** The last seq at each sweep: the jobs up to it were added by then (see sweep). */
  private sweeps: Array<{ at: number; seq: number }> = [];
  private batch: Array<{ jobs: QueuedJob[]; resolve: () => void; reject: (err: unknown) => void }> = [];
  private processed = 0;
  private failed = 0;
  /** One transaction for every job of a group commit (created once: `db.transaction` is not free). */
  private readonly insertAll: (items: Array<{ jobs: QueuedJob[] }>) => void;
  /** Committed adds waiting for the WAL sync that makes them durable (see `durable`). */
  private unsynced: Array<{ jobs: QueuedJob[]; resolve: () => void; reject: (err: unknown) => void }> = [];
  private syncing: Promise<void> | undefined;
  private readonly syncWal: ((done: (err?: Error | null) => void) => void) | undefined;
  private walFd: number | undefined;
  /** The end of a batch, one transaction (see runBatch). */
  private readonly record: (ended: Array<{ row: JobRow; result: JobResult }>, retry?: { row: JobRow; runAfter: number }) => void;

  constructor(private readonly opts: LocalQueueOptions) {
    // The connection commits with synchronous NORMAL (WAL): every commit survives a process crash
    // at once. What `synchronous = FULL` adds — the WAL synced to disk at each commit — is done
    // for the group commits of `add` only, and not in the commit: SQLite's FULL would fsync on
    // the event loop (≈ 40 % of the accepting thread's busy time in a storm, measured), so the
    // adds of a commit resolve once an `fdatasync` of the WAL file, started after that commit,
    // has returned from libuv's thread pool; meanwhile the loop parses and commits the next
    // posts. The WAL holds every committed frame until a checkpoint has copied it into the
    // database file and synced that file, so the synced WAL (or the synced database) has the job.
    // Attempt counts and results of running jobs reach the disk with the next such sync or
    // checkpoint: a power loss just after a job finished can forget that it finished, and the
    // job runs again — harmless, jobs are idempotent, and the alert data they wrote is itself
    // committed with NORMAL (service.ts).
    this.db = openSqlite(opts.file);
    if (opts.checkpoints === false) this.db.pragma("wal_autocheckpoint = 0");
    const durable = (opts.synchronous ?? "FULL") === "FULL" && opts.file !== ":memory:";
    this.syncWal = durable ? (opts.syncWal ?? ((done) => this.fdatasyncWal(done))) : undefined;
    this.db.exec(SCHEMA);
    const insert = this.db.prepare(
      "INSERT OR IGNORE INTO jobs (id, name, lane, data, created_at, run_after) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.insertAll = this.db.transaction((items: Array<{ jobs: QueuedJob[] }>) => {
      const now = Date.now();
      for (const { jobs } of items)
        for (const job of jobs) insert.run(job.id, job.name, job.lane, JSON.stringify(job.data), now, now + (job.delayMs ?? 0));
    });
    this.record = this.db.transaction(
      (ended: Array<{ row: JobRow; result: JobResult }>, retry?: { row: JobRow; runAfter: number }) => {
        for (const { row, result } of ended) this.finish(row, result);
        if (retry)
          prepared(this.db, "UPDATE jobs SET attempts = ?, run_after = ? WHERE seq = ?").run(
            retry.row.attempts + 1,
            retry.runAfter,
            retry.row.seq,
          );
      },
    );
    this.lanes = opts.lanes ?? DEFAULT_LANES;
    this.maxAttempts = opts.maxAttempts ?? MAX_ATTEMPTS;
    this.retainMs = opts.retainMs ?? 3_600_000;
    this.events.setMaxListeners(0);
  }

  /**
   * Group commit: adds that arrive in the same turn of the event loop are written in one
   * transaction (one fsync), and each resolves only after that commit.
   */
  add(job: QueuedJob): Promise<void> {
    return this.addBulk([job]);
  }

  /** Joins the same group commit as `add`; the jobs are inserted in array order. */
  addBulk(jobs: QueuedJob[]): Promise<void> {
    if (jobs.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.batch.push({ jobs, resolve, reject });
      if (this.batch.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const items = this.batch;
    this.batch = [];
    try {
      this.insertAll(items);
    } catch (err) {
      for (const item of items) item.reject(queueUnavailable(err));
      return;
    }
    if (!this.syncWal) {
      this.settle(items);
      return;
    }
    this.unsynced.push(...items);
    if (!this.syncing) this.syncing = this.sync();
  }

  /**
   * One WAL sync for every add committed before it starts; adds committed while it runs wait
   * for the next (a group commit of syncs, as of transactions).
   */
  private async sync(): Promise<void> {
    const { syncWal } = this;
    while (syncWal && this.unsynced.length) {
      const items = this.unsynced;
      this.unsynced = [];
      const err = await new Promise<Error | null | undefined>((resolve) => syncWal(resolve));
      if (err) for (const item of items) item.reject(queueUnavailable(err));
      else this.settle(items);
    }
    this.syncing = undefined;
  }

  private fdatasyncWal(done: (err?: Error | null) => void): void {
    try {
      // The WAL exists once the connection has committed, and stays while it is open.
      this.walFd ??= openSync(`${this.opts.file}-wal`, "r");
    } catch (err) {
      done(err as Error);
      return;
    }
    fdatasync(this.walFd, done);
  }

  /** The adds of a durable commit resolve, and the lanes they went to are woken. */
  private settle(items: Array<{ jobs: QueuedJob[]; resolve: () => void }>): void {
    const lanes = new Set<number>();
    for (const item of items) {
      item.resolve();
      for (const job of item.jobs) lanes.add(job.lane);
    }
    this.wake([...lanes]);
    this.opts.onCommit?.([...lanes]);
  }

  /** Wakes the lanes' loops (jobs were committed to them, here or by another connection to the file). */
  wake(lanes: number[]): void {
    for (const lane of lanes) this.wakers.get(lane)?.();
  }

  /**
   * Jobs that ended in another thread (which runs this file's lanes): counted and announced to
   * `waitFor` as if run here. Their ends are already committed to the file.
   */
  ended(jobs: EndedJob[]): void {
    for (const { id, result } of jobs) {
      if (result.state === "completed") this.processed++;
      else this.failed++;
      this.events.emit(id, result);
    }
  }

  async start(run: JobRunner | BatchWorker): Promise<void> {
    if (this.running) return;
    this.running = true;
    const worker = asBatchWorker(run);
    this.loops = Array.from({ length: this.lanes }, (_, lane) => this.loop(lane, worker));
    this.sweeper = setInterval(() => this.sweep(), this.opts.sweepEveryMs ?? 60_000);
    this.sweeper.unref();
  }

  /**
   * The lane's next due jobs, at most `max`. Ordered: the head of the lane and the jobs behind it
   * up to the first that is not due (a retrying head holds the lane); `wait` is how long until the
   * head is due. Unordered: whichever jobs are due, earliest first.
   */
  private next(lane: number, max: number): { jobs: JobRow[]; wait: number } {
    const now = Date.now();
    if (this.opts.ordered === false) {
      const jobs = prepared(
        this.db,
        "SELECT seq, id, name, data, attempts, run_after FROM jobs WHERE lane = ? AND status = 'pending' AND run_after <= ? ORDER BY run_after, seq LIMIT ?",
      ).all(lane, now, max) as JobRow[];
      if (jobs.length) return { jobs, wait: 0 };
      // Sleep until the earliest delayed job is due (a timer fires on time, not up to 1 s late).
      const first = prepared(this.db, "SELECT MIN(run_after) AS at FROM jobs WHERE lane = ? AND status = 'pending'").get(
        lane,
      ) as {
        at: number | null;
      };
      return { jobs, wait: first.at === null ? 1000 : Math.max(1, first.at - now) };
    }
    const rows = prepared(
      this.db,
      "SELECT seq, id, name, data, attempts, run_after FROM jobs WHERE lane = ? AND status = 'pending' ORDER BY seq LIMIT ?",
    ).all(lane, max) as JobRow[];
    const head = rows[0];
    if (!head) return { jobs: [], wait: 1000 };
    if (head.run_after > now) return { jobs: [], wait: head.run_after - now };
    const due = rows.findIndex((r) => r.run_after > now);
    return { jobs: due < 0 ? rows : rows.slice(0, due), wait: 0 };
  }

  private sleep(lane: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakers.set(lane, done);
    });
  }

  private async loop(lane: number, worker: BatchWorker): Promise<void> {
    while (this.running) {
      const { jobs, wait } = this.next(lane, worker.maxJobs);
      if (jobs.length === 0) {
        await this.sleep(lane, Math.max(1, Math.min(wait, 1000)));
        continue;
      }
      // Let I/O (requests, answers) through between batches: with the synchronous SQLite stores a
      // batch is a chain of microtasks that would otherwise hold the event loop for a whole lane.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await this.runBatch(jobs, worker);
    }
  }

  /**
   * Runs a batch and records its end in one transaction: the jobs that completed, and the first
   * failure (retried after a backoff, holding an ordered lane, or failed for good); the jobs
   * after it were not run and stay as they are. Attempts are counted when a run ends, so a
   * crash mid-batch re-runs the batch as the same attempts (jobs are idempotent).
   */
  private async runBatch(rows: JobRow[], worker: BatchWorker): Promise<void> {
    const running = rows.map((r) => ({ id: r.id, name: r.name, data: JSON.parse(r.data), attempt: r.attempts + 1 }));
    let outcomes: JobOutcome[];
    try {
      outcomes = await worker.batch(running);
    } catch (error) {
      outcomes = [{ ok: false, error }];
    }
    const ended: Array<{ row: JobRow; result: JobResult }> = [];
    let retry: { row: JobRow; runAfter: number } | undefined;
    for (const [i, outcome] of outcomes.slice(0, rows.length).entries()) {
      const row = rows[i] as JobRow;
      const attempt = row.attempts + 1;
      if (outcome.ok) {
        ended.push({ row, result: { state: "completed", result: outcome.result ?? null } });
        continue;
      }
      const err = outcome.error;
      if (!(err instanceof UnrecoverableJobError) && attempt < this.maxAttempts) {
        retry = { row, runAfter: Date.now() + (this.opts.backoff ?? backoffMs)(attempt) };
        break;
      }
      this.opts.logger.error({ err, jobId: row.id, job: row.name, attempt }, "job failed for good");
      ended.push({ row, result: { state: "failed", error: err instanceof Error ? err.message : String(err) } });
      break;
    }
    this.record(ended, retry);
    const told = ended.map(({ row, result }) => ({ id: row.id, result }));
    this.ended(told);
    if (told.length) this.opts.onEnded?.(told);
  }

  private finish(job: JobRow, result: JobResult): void {
    const completed = result.state === "completed";
    prepared(this.db, "UPDATE jobs SET status = ?, attempts = ?, result = ?, error = ?, finished_at = ? WHERE seq = ?").run(
      result.state,
      job.attempts + 1,
      completed ? JSON.stringify(result.result) : null,
      completed ? null : result.error,
      Date.now(),
      job.seq,
    );
  }

  private stored(id: string): JobResult | undefined {
    const row = prepared(this.db, "SELECT status, result, error FROM jobs WHERE id = ?").get(id) as
      | { status: string; result: string | null; error: string | null }
      | undefined;
    if (row?.status === "completed") return { state: "completed", result: JSON.parse(row.result ?? "null") };
    if (row?.status === "failed") return { state: "failed", error: row.error ?? "" };
    return undefined;
  }

  async waitFor(id: string, _lane: number, timeoutMs: number): Promise<JobResult | undefined> {
    // Synchronous read and listener registration in one tick: no completion can slip between.
    const done = this.stored(id);
    if (done || timeoutMs <= 0) return done;
    return new Promise((resolve) => {
      const onDone = (result: JobResult) => {
        clearTimeout(timer);
        resolve(result);
      };
      const timer = setTimeout(() => {
        this.events.off(id, onDone);
        resolve(undefined);
      }, timeoutMs);
      this.events.once(id, onDone);
    });
  }

  async counts() {
    const { n } = prepared(this.db, "SELECT COUNT(*) AS n FROM jobs WHERE status = 'pending'").get() as { n: number };
    return { pending: n, processed: this.processed, failed: this.failed };
  }

  async healthy() {
    return this.db.open;
  }

  /**
   * Deletes the jobs that finished more than `retainMs` ago. A job that finished then was added
   * before then, so it lies at or below the last seq of a sweep made before then: only that
   * range is read (seq is the rowid), not the whole file. After a restart the first such bound
   * is `retainMs` away, so finished jobs stay that much longer once.
   */
  private sweep(): void {
    const now = Date.now();
    const { seq } = prepared(this.db, "SELECT COALESCE(MAX(seq), 0) AS seq FROM jobs").get() as { seq: number };
    this.sweeps.push({ at: now, seq });
    const cutoff = now - this.retainMs;
    const past = this.sweeps.filter((s) => s.at <= cutoff);
    const bound = past.at(-1);
    if (!bound) return;
    this.sweeps = this.sweeps.filter((s) => s.at > bound.at);
    prepared(this.db, "DELETE FROM jobs WHERE seq <= ? AND status <> 'pending' AND finished_at < ?").run(bound.seq, cutoff);
  }

  async close(): Promise<void> {
    this.running = false;
    if (this.sweeper) clearInterval(this.sweeper);
    for (const wake of this.wakers.values()) wake();
    await Promise.all(this.loops);
    await this.syncing;
    if (this.walFd !== undefined) closeSync(this.walFd);
    this.db.close();
  }
}
