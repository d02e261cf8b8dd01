/** The generic job queue both backends implement (BullMQ and the durable local queue). */

export interface QueuedJob {
  /** Unique id; adding a job whose id is known does nothing. */
  id: string;
  name: string;
  /** Ordering lane, 0 ≤ lane < lanes: jobs of one lane run one at a time, in order. */
  lane: number;
  data: unknown;
  /** Runs no earlier than this many ms after it is stored (default 0). */
  delayMs?: number;
}

export interface RunningJob {
  id: string;
  name: string;
  data: unknown;
  /** 1 on the first run. */
  attempt: number;
}

export type JobRunner = (job: RunningJob) => Promise<unknown>;

/** How one job of a batch ended: its result, or the error it failed with. */
export type JobOutcome = { ok: true; result: unknown } | { ok: false; error: unknown };

/**
 * Runs several due jobs of one lane, in order, and answers one outcome per job it ran: every job
 * up to and including the first that failed (the jobs after a failure are not run, and wait for
 * a later batch). Throwing counts as a failure of the first job.
 */
type BatchRunner = (jobs: RunningJob[]) => Promise<JobOutcome[]>;

/** A worker that takes up to `maxJobs` due jobs of a lane at once (a backend may hand it fewer). */
export interface BatchWorker {
  batch: BatchRunner;
  maxJobs: number;
}

export type JobResult = { state: "completed"; result: unknown } | { state: "failed"; error: string };

interface QueueCounts {
  /** Waiting, delayed or running. */
  pending: number;
  /** Finished by this process since it started. */
  processed: number;
  failed: number;
}

export interface JobQueue {
  /** Resolves once the job is durably stored. Throws AppError UNAVAILABLE (QUEUE_UNAVAILABLE) otherwise. */
  add(job: QueuedJob): Promise<void>;
  /**
   * Adds several jobs at once (one transaction or one round of commands), each as `add` would;
   * jobs of one lane are stored, and run, in array order. Resolves once every job is durably
   * stored; throws like `add` otherwise.
   */
  addBulk(jobs: QueuedJob[]): Promise<void>;
  /** Starts the workers: one job at a time per lane, or batches of a lane's due jobs. */
  start(run: JobRunner | BatchWorker): Promise<void>;
  /** The job's end, or undefined when it has not ended within `timeoutMs` (or once `signal` aborts: the wait is dropped at once). */
  waitFor(id: string, lane: number, timeoutMs: number, signal?: AbortSignal): Promise<JobResult | undefined>;
  counts(): Promise<QueueCounts>;
  healthy(): Promise<boolean>;
  /** Stops taking jobs, lets running ones finish, closes connections. */
  close(): Promise<void>;
}

/** Thrown by a runner for jobs that can never succeed (invalid data): no retry. */
export class UnrecoverableJobError extends Error {
  override readonly name = "UnrecoverableJobError";
}

export const DEFAULT_LANES = 8;
export const MAX_ATTEMPTS = 5;
const BACKOFF_MS = 250;

/** Delay before the retry that follows failed attempt number `attempt` (1 = the first run). */
export type Backoff = (attempt: number) => number;

/** How a queue retries a failing job; the alert queues use MAX_ATTEMPTS and backoffMs. */
export interface RetryPolicy {
  maxAttempts: number;
  backoff: Backoff;
}

/** A worker as a batch runner: a plain JobRunner runs batches of one. */
export function asBatchWorker(run: JobRunner | BatchWorker): BatchWorker {
  if (typeof run !== "function") return run;
  return {
    maxJobs: 1,
    batch: async (jobs) => {
      const outcomes: JobOutcome[] = [];
      for (const job of jobs) {
        try {
          outcomes.push({ ok: true, result: await run(job) });
        } catch (error) {
          outcomes.push({ ok: false, error });
          break;
        }
      }
      return outcomes;
    },
  };
}

export function backoffMs(attempt: number): number {
  return BACKOFF_MS * 2 ** Math.max(0, attempt - 1);
}
