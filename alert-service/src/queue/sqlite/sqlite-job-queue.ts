import type { Database as Db } from "better-sqlite3";
import {
  asBatchWorker,
  type BatchWorker,
  DEFAULT_LANES,
  type JobOutcome,
  type JobQueue,
  type JobResult,
  type JobRunner,
  MAX_ATTEMPTS,
  type QueuedJob,
} from "../queue.js";
import { GroupCommit } from "./group-commit.js";
import { dueAcrossLanes, LaneSleepers, nextDue } from "./lanes.js";
import { JobEnds } from "./notifications.js";
import type { EndedJob, SqliteQueueOptions } from "./options.js";
import { unitsOf } from "./packs.js";
import { type BatchEnd, createBatchRecorder, endOfBatch, type RetryRules } from "./retries.js";
import { type JobRow, openQueueDb } from "./schema.js";
import { FinishedJobSweeper } from "./sweep.js";

/** The merged loop's key among the sleepers (lanes are 0…lanes-1). */
const ALL_LANES = -1;

/**
 * The durable queue on a SQLite file: a job is committed and its WAL synced to disk before `add`
 * resolves (group-commit.ts), each lane runs its jobs strictly in order one at a time (or, with a
 * BatchWorker, its due jobs in order in batches of up to `maxJobs`, whose ends are recorded in
 * one transaction: retries.ts; with `mergeLanes`, one loop's batches take several lanes' jobs),
 * and jobs not finished when the process died run again on the
 * next start. A failing job is retried with backoff and holds its lane meanwhile, so order within
 * a lane is never broken.
 */
export class SqliteJobQueue implements JobQueue {
  private readonly db: Db;
  private readonly lanes: number;
  private readonly commits: GroupCommit;
  private readonly sleepers = new LaneSleepers();
  private readonly ends: JobEnds;
  private readonly sweeper: FinishedJobSweeper;
  private readonly rules: RetryRules;
  private readonly record: (end: BatchEnd) => void;
  private loops: Promise<void>[] = [];
  private running = false;

  constructor(private readonly opts: SqliteQueueOptions) {
    this.db = openQueueDb(opts.file, opts.checkpoints ?? "here", opts.ordered !== false);
    const durable = (opts.synchronous ?? "FULL") === "FULL" && opts.file !== ":memory:";
    this.commits = new GroupCommit(
      this.db,
      opts.file,
      durable ? (opts.syncWal ?? "fdatasync") : undefined,
      (lanes) => {
        this.wake(lanes);
        opts.onCommit?.(lanes);
      },
      opts.ordered !== false,
    );
    this.record = createBatchRecorder(this.db);
    this.ends = new JobEnds(this.db);
    this.sweeper = new FinishedJobSweeper(this.db, opts.retainMs ?? 3_600_000);
    this.lanes = opts.lanes ?? DEFAULT_LANES;
    this.rules = { maxAttempts: opts.maxAttempts ?? MAX_ATTEMPTS, backoff: opts.backoff, logger: opts.logger };
  }

  /** Group commit: resolves once the job is durable (see group-commit.ts). */
  add(job: QueuedJob): Promise<void> {
    return this.commits.add([job]);
  }

  /** Joins the same group commit as `add`; the jobs are inserted in array order. */
  addBulk(jobs: QueuedJob[]): Promise<void> {
    return this.commits.add(jobs);
  }

  /** Wakes the lanes' loops (jobs were committed to them, here or by another connection to the file). */
  wake(lanes: number[]): void {
    this.sleepers.wake(this.merged ? [ALL_LANES] : lanes);
  }

  /** One loop runs every lane (`mergeLanes`, ordered queues only). */
  private get merged(): boolean {
    return this.opts.mergeLanes === true && this.opts.ordered !== false;
  }

  /**
   * Jobs that ended in another thread (which runs this file's lanes): counted and announced to
   * `waitFor` as if run here. Their ends are already committed to the file.
   */
  ended(jobs: EndedJob[]): void {
    this.ends.told(jobs);
  }

  async start(run: JobRunner | BatchWorker): Promise<void> {
    if (this.running) return;
    this.running = true;
    const worker = asBatchWorker(run);
    const ordered = this.opts.ordered !== false;
    this.loops = this.merged
      ? [this.loop(ALL_LANES, () => dueAcrossLanes(this.db, this.lanes, worker.maxJobs), worker)]
      : Array.from({ length: this.lanes }, (_, lane) =>
          this.loop(lane, () => nextDue(this.db, lane, worker.maxJobs, ordered), worker),
        );
    this.sweeper.start(this.opts.sweepEveryMs ?? 60_000);
  }

  /** Runs batches of what `due` reads while running; sleeps (as `key` among the sleepers) while nothing is due. */
  private async loop(key: number, due: () => { jobs: JobRow[]; wait: number }, worker: BatchWorker): Promise<void> {
    while (this.running) {
      const { jobs, wait } = due();
      if (jobs.length === 0) {
        await this.sleepers.sleep(key, Math.max(1, Math.min(wait, 1000)));
        continue;
      }
      // Let I/O (requests, answers) through between batches: with the synchronous SQLite stores a
      // batch is a chain of microtasks that would otherwise hold the event loop for a whole lane.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await this.runBatch(jobs, worker);
    }
  }

  /** Runs a batch (the rows' jobs, packs unpacked), records its end in one transaction, and tells of the jobs that ended. */
  private async runBatch(rows: JobRow[], worker: BatchWorker): Promise<void> {
    const units = unitsOf(rows, worker.maxJobs);
    let outcomes: JobOutcome[];
    try {
      outcomes = await worker.batch(units.map((unit) => unit.job));
    } catch (error) {
      outcomes = [{ ok: false, error }];
    }
    const end = endOfBatch(units, outcomes, this.rules);
    this.record(end);
    const told = end.ended.map(({ unit, result }) => ({ id: unit.job.id, result }));
    this.ends.told(told);
    if (told.length) this.opts.onEnded?.(told);
  }

  async waitFor(id: string, _lane: number, timeoutMs: number, signal?: AbortSignal): Promise<JobResult | undefined> {
    return this.ends.waitFor(id, timeoutMs, signal);
  }

  async counts() {
    return this.ends.counts();
  }

  async healthy() {
    return this.db.open;
  }

  async close(): Promise<void> {
    this.running = false;
    this.sweeper.stop();
    this.sleepers.wakeAll();
    await Promise.all(this.loops);
    await this.commits.close();
    this.db.close();
  }
}
