import type { Logger } from "@tocsin/core";
import type { Checkpoints } from "@tocsin/store";
import type { Backoff, JobResult } from "../queue.js";

export interface SqliteQueueOptions {
  /** SQLite file (`${DATA_DIR}/alert-queue.db`), or `:memory:` (not durable; tests only). */
  file: string;
  logger: Logger;
  lanes?: number;
  maxAttempts?: number;
  /**
   * `FULL` (default): a job survives a power loss once `add` resolved: the WAL is synced to disk
   * after each group commit, off the event loop (see `syncWal`). `NORMAL`: survives a crash or
   * SIGKILL of the process, not of the machine. This applies to `add`; the bookkeeping writes of
   * running jobs (attempt counts, results) are never synced on their own (see schema.ts).
   */
  synchronous?: "FULL" | "NORMAL";
  /**
   * How the WAL is made durable for `synchronous: FULL` (default: `fdatasync` of `<file>-wal` on
   * libuv's thread pool). Tests hold or fail it to see that `add` waits for it.
   */
  syncWal?: SyncWal;
  /**
   * Who checkpoints the WAL this connection writes (libs/store `openSqlite`; default "here", in
   * this connection's commits). The thread that accepts says "never", so that it is not held by
   * one: the processing thread's connection to the file checkpoints it, in its job-end commits.
   */
  checkpoints?: Checkpoints;
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
   * true: one loop runs every lane (ordered queues only). Each batch takes the due jobs of several
   * lanes, each lane's in order, lanes in the order of their oldest job, up to the worker's
   * `maxJobs`; a failing job holds only its own lane. For a worker that runs one batch at a time
   * anyway (the synchronous SQLite stores): one transaction of the stores and one end for jobs
   * that per-lane loops would take in as many batches as lanes have work (default false: a loop
   * per lane, lanes side by side).
   */
  mergeLanes?: boolean;
  /**
   * Told of the lanes of every group commit, once it is durable: another thread that runs this
   * file's lanes (see `wake`) learns of new jobs without polling.
   */
  onCommit?: (lanes: number[]) => void;
  /** Told of the jobs that ended in each batch, once recorded: the thread that waits for them (see `ended`). */
  onEnded?: (ended: EndedJob[]) => void;
}

export type SyncWal = (done: (err?: Error | null) => void) => void;

/** A job that ended, as told between threads (see `SqliteQueueOptions.onEnded`). */
export interface EndedJob {
  id: string;
  result: JobResult;
}
