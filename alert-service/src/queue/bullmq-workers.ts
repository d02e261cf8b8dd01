import type { Logger } from "@tocsin/core";
import { type Job, type Queue, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { JobEnds } from "./bullmq-ends.js";
import { PACK_NAME, PACK_WORKER_NAME } from "./bullmq-packs.js";
import type { RetryPolicy } from "./queue.js";

/** Jobs take milliseconds: a worker that died is noticed within ~10 s, not BullMQ's 30 s. */
export const LOCK_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the workers read of the queue's options (BullmqQueueOptions, bullmq-queue.ts). */
interface QueueSettings {
  logger: Logger;
  releaseRetryingOnClose?: boolean;
  concurrency?: number;
}

/** What the workers take of the queue itself. */
interface QueueParts {
  prefix: string;
  ordered: boolean;
  retry: RetryPolicy;
  /** Announces the jobs BullMQ ended itself, from the workers' events (bullmq-ends.ts). */
  ends: JobEnds;
}

/**
 * A BullmqJobQueue's workers, one per lane: made with their settings and events, an ordered
 * lane's run once its global concurrency is set, a retrying job's pause, and `close`, which
 * wakes the pauses and closes the workers (releasing retrying jobs with releaseRetryingOnClose).
 */
export class BullmqWorkers {
  private workers: Worker[] = [];
  private closing = false;
  /** Jobs waiting for their next attempt: woken at once by `close`. */
  private readonly waiting = new Set<() => void>();

  constructor(
    private readonly opts: QueueSettings,
    private readonly parts: QueueParts,
  ) {}

  /** A worker per queue (lane) on `connection`, each job handed to `process`. */
  start(
    queues: Queue[],
    connection: Redis,
    process: (job: Job, token: string | undefined, queue: Queue) => Promise<unknown>,
  ): void {
    const { prefix, ordered, retry, ends } = this.parts;
    this.workers = queues.map((q) => {
      const worker = new Worker(q.name, (job: Job, token?: string) => process(job, token, q), {
        connection,
        prefix,
        name: PACK_WORKER_NAME,
        concurrency: ordered ? 1 : (this.opts.concurrency ?? 1),
        // Ordered lanes start once their global concurrency is set (see `runOrdered`).
        autorun: !ordered,
        lockDuration: LOCK_MS,
        stalledInterval: 5_000,
        // A job whose worker died is put back, however often that happens: BullMQ's default (1)
        // fails a job caught by a second crash, and a job here is an acknowledged alert or mail.
        // Jobs are idempotent, so running one again is safe.
        maxStalledCount: Number.MAX_SAFE_INTEGER,
        settings: { backoffStrategy: (attemptsMade: number) => retry.backoff(attemptsMade) },
      });
      worker.on("error", (err) => this.opts.logger.warn({ err }, "worker error"));
      // A pack's jobs are announced by `record`, not with the pack's end.
      worker.on("completed", (job) => {
        if (job.name !== PACK_NAME) ends.published(job.id, { state: "completed", result: job.returnvalue ?? null });
      });
      worker.on("failed", (job, err) => {
        if (!job || job.name === PACK_NAME) return;
        const final = err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
        if (!final) return;
        this.opts.logger.warn({ err, jobId: job.id, job: job.name }, "job failed for good");
        ends.published(job.id, { state: "failed", error: err.message });
      });
      return worker;
    });
    // Not awaited: with Redis down the service still starts (health NOT_SERVING, ingest 503) and
    // the workers connect once Redis is back.
    if (ordered) this.workers.forEach((w, lane) => void this.runOrdered(w, queues[lane] as Queue));
    else for (const w of this.workers) w.waitUntilReady().catch((err) => this.opts.logger.warn({ err }, "worker not ready"));
  }

  /**
   * Sets the lane's global concurrency to 1 (a field of the queue's meta hash in Redis, so every
   * replica sees it; setting it again is harmless), retrying until Redis answers, then starts
   * the worker: no worker of an ordered lane ever runs without the limit.
   */
  private async runOrdered(worker: Worker, queue: Queue): Promise<void> {
    for (let attempt = 1; !this.closing; attempt++) {
      try {
        await queue.setGlobalConcurrency(1);
        break;
      } catch (err) {
        this.opts.logger.warn({ err, queue: queue.name }, "ordered lane not started yet");
        await sleep(Math.min(attempt * 200, 2000));
      }
    }
    if (!this.closing) worker.run().catch((err) => this.opts.logger.warn({ err, queue: queue.name }, "worker stopped"));
  }

  /** An ordered lane's wait before a failed job's next attempt (OrderedLane.pause). */
  async pause(ms: number): Promise<void> {
    await this.wait(ms);
    // Closing with releaseRetryingOnClose: the job is left active, never to end here (see the option).
    if (this.closing && this.opts.releaseRetryingOnClose) await new Promise(() => undefined);
  }

  private wait(ms: number): Promise<void> {
    if (!this.opts.releaseRetryingOnClose) return sleep(ms).then(() => undefined);
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiting.add(done);
    });
  }

  /** The first step of the queue's `close`: no ordered lane starts after it. */
  async close(): Promise<void> {
    this.closing = true;
    const release = this.opts.releaseRetryingOnClose === true && this.waiting.size > 0;
    for (const wake of this.waiting) wake();
    await Promise.all(this.workers.map((w) => w.close(release)));
  }
}
