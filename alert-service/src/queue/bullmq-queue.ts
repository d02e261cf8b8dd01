import { type Logger, unavailable, withTimeout } from "@tocsin/core";
import { type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { laneQueueName, QUEUE_PREFIX } from "./jobs.js";
import {
  asBatchWorker,
  type BatchWorker,
  backoffMs,
  DEFAULT_LANES,
  type JobQueue,
  type JobResult,
  type JobRunner,
  MAX_ATTEMPTS,
  type QueuedJob,
  type RetryPolicy,
  UnrecoverableJobError,
} from "./queue.js";

export interface BullmqQueueOptions {
  redisUrl: string;
  logger: Logger;
  lanes?: number;
  /** How long `add` may take before it fails with UNAVAILABLE. */
  addTimeoutMs?: number;
  /** Redis key prefix (tests use their own). */
  prefix?: string;
  /** The BullMQ queue of a lane (default `alerts-lane-<n>`). */
  queueName?: (lane: number) => string;
  retry?: RetryPolicy;
  /**
   * true (default): a lane runs one job at a time across every process (BullMQ global
   * concurrency 1) in order, a failing job holding it while it retries. false: retries wait in
   * BullMQ's delayed set and hold nothing (the mail and timer queues).
   */
  ordered?: boolean;
  /**
   * Ordered lanes whose retries wait long (the channel queue: up to an hour between attempts):
   * on `close`, a job waiting for its next attempt is left active, unfinished, and the workers
   * close without waiting for it; its lock expires and BullMQ's stalled-job check puts it back
   * (in the next process, or another replica). Default false: `close` waits for every job.
   */
  releaseRetryingOnClose?: boolean;
  /** Jobs one process runs at once per lane (unordered queues only; default 1): the timer queue's moves wait on service calls. */
  concurrency?: number;
}

/** BullMQ refuses `:` in custom ids. */
const bullId = (id: string) => id.replaceAll(":", "_");

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: MAX_ATTEMPTS, backoff: backoffMs };

const jobOptions = (job: QueuedJob, retry: RetryPolicy, ordered: boolean) => ({
  jobId: bullId(job.id),
  // Ordered lanes retry inside the processor (see `process`); BullMQ runs such a job once.
  attempts: ordered ? 1 : retry.maxAttempts,
  // The worker's backoffStrategy computes each delay from the queue's RetryPolicy.
  backoff: { type: "policy" },
  ...(job.delayMs ? { delay: job.delayMs } : {}),
  removeOnComplete: { age: 3600, count: 100_000 },
  removeOnFail: { age: 86_400 },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * BullMQ backend: one queue per lane, each with one worker of concurrency 1 per process. An
 * ordered lane also has BullMQ's global concurrency set to 1, so with several replicas (several
 * workers per lane) still one job of the lane runs at a time, in the order added: a worker takes
 * the lane's next job only while the lane has no active job. A failing job retries inside its
 * run with the RetryPolicy's backoff and stays active meanwhile, so it holds the lane in every
 * process; a job whose worker died stays active until BullMQ finds it stalled (≤ ~15 s) and
 * puts it back at the head of the lane. The producer connection fails fast (no offline queue, one retry) so that an
 * unreachable Redis turns into UNAVAILABLE within ~1-2 s instead of a hanging request.
 * Finished jobs are announced on a pub/sub channel for `waitFor`.
 */
export class BullmqJobQueue implements JobQueue {
  private readonly producer: Redis;
  private readonly subscriber: Redis;
  private workerConnection: Redis | undefined;
  private readonly queues: Queue[];
  private workers: Worker[] = [];
  private readonly waiters = new Map<string, Set<(r: JobResult) => void>>();
  private processed = 0;
  private failed = 0;
  private readonly lanes: number;
  private readonly prefix: string;
  private readonly doneChannel: string;
  private readonly ordered: boolean;
  private readonly retry: RetryPolicy;
  private closing = false;

  constructor(private readonly opts: BullmqQueueOptions) {
    this.lanes = opts.lanes ?? DEFAULT_LANES;
    this.prefix = opts.prefix ?? QUEUE_PREFIX;
    this.ordered = opts.ordered ?? true;
    this.retry = opts.retry ?? DEFAULT_RETRY;
    const queueName = opts.queueName ?? laneQueueName;
    this.doneChannel = `${this.prefix}:${opts.queueName ? opts.queueName(0) : "alert-jobs"}:done`;
    const failFast = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 1000,
      retryStrategy: (n: number) => Math.min(n * 200, 2000),
    };
    this.producer = new Redis(opts.redisUrl, failFast);
    this.subscriber = new Redis(opts.redisUrl, {
      maxRetriesPerRequest: null,
      retryStrategy: (n: number) => Math.min(n * 200, 2000),
    });
    for (const c of [this.producer, this.subscriber])
      c.on("error", (err) => opts.logger.debug({ err }, "redis connection error"));
    this.queues = Array.from(
      { length: this.lanes },
      (_, lane) => new Queue(queueName(lane), { connection: this.producer, prefix: this.prefix }),
    );
    for (const q of this.queues) q.on("error", (err) => opts.logger.debug({ err }, "queue error"));
    this.subscriber.on("message", (_channel, text: string) => this.announce(text));
    this.subscriber.subscribe(this.doneChannel).catch((err) => opts.logger.warn({ err }, "cannot subscribe to job completions"));
  }

  async add(job: QueuedJob): Promise<void> {
    return this.addBulk([job]);
  }

  /**
   * One `Queue.addBulk` per lane (a MULTI: the lane's jobs are stored atomically and in order),
   * the lanes concurrently; resolves once Redis acknowledged every job.
   */
  async addBulk(jobs: QueuedJob[]): Promise<void> {
    const byLane = new Map<number, QueuedJob[]>();
    for (const job of jobs) {
      if (!this.queues[job.lane]) throw new Error(`no lane ${job.lane}`);
      const list = byLane.get(job.lane);
      if (list) list.push(job);
      else byLane.set(job.lane, [job]);
    }
    const adds = [...byLane].map(([lane, list]) =>
      (this.queues[lane] as Queue).addBulk(
        list.map((job) => ({ name: job.name, data: job.data, opts: jobOptions(job, this.retry, this.ordered) })),
      ),
    );
    try {
      await withTimeout(Promise.all(adds), this.opts.addTimeoutMs ?? 1500);
    } catch (err) {
      throw unavailable("QUEUE_UNAVAILABLE", "The alert queue is unavailable, try again later", err, 5);
    }
  }

  /** A BatchWorker gets batches of one job here (BullMQ's Worker takes one job at a time). */
  async start(run: JobRunner | BatchWorker): Promise<void> {
    const batches = asBatchWorker(run);
    this.workerConnection = new Redis(this.opts.redisUrl, { maxRetriesPerRequest: null });
    this.workerConnection.on("error", (err) => this.opts.logger.debug({ err }, "redis worker connection error"));
    this.workers = this.queues.map((q) => {
      const worker = new Worker(q.name, (job: Job) => this.process(job, batches), {
        connection: this.workerConnection as Redis,
        prefix: this.prefix,
        concurrency: this.ordered ? 1 : (this.opts.concurrency ?? 1),
        // Ordered lanes start once their global concurrency is set (see `run`).
        autorun: !this.ordered,
        // Jobs take milliseconds: a worker that died is noticed within ~10 s, not BullMQ's 30 s.
        lockDuration: 10_000,
        stalledInterval: 5_000,
        // A job whose worker died is put back, however often that happens: BullMQ's default (1)
        // fails a job caught by a second crash, and a job here is an acknowledged alert or mail.
        // Jobs are idempotent, so running one again is safe.
        maxStalledCount: Number.MAX_SAFE_INTEGER,
        settings: { backoffStrategy: (attemptsMade: number) => this.retry.backoff(attemptsMade) },
      });
      worker.on("error", (err) => this.opts.logger.warn({ err }, "worker error"));
      worker.on("completed", (job) => this.publish(job.id, { state: "completed", result: job.returnvalue ?? null }));
      worker.on("failed", (job, err) => {
        if (!job) return;
        const final = err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
        if (!final) return;
        this.opts.logger.warn({ err, jobId: job.id, job: job.name }, "job failed for good");
        this.publish(job.id, { state: "failed", error: err.message });
      });
      return worker;
    });
    // Not awaited: with Redis down the service still starts (health NOT_SERVING, ingest 503) and
    // the workers connect once Redis is back.
    if (this.ordered) this.workers.forEach((w, lane) => void this.runOrdered(w, this.queues[lane] as Queue));
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

  private async process(job: Job, worker: BatchWorker): Promise<unknown> {
    for (let attempt = job.attemptsMade + 1; ; attempt++) {
      const [outcome] = await worker
        .batch([{ id: job.id ?? "", name: job.name, data: job.data, attempt }])
        .catch((error: unknown) => [{ ok: false as const, error }]);
      if (outcome?.ok) return outcome.result;
      const err = outcome ? outcome.error : new Error("the batch runner ran no job");
      if (err instanceof UnrecoverableJobError) throw new UnrecoverableError(err.message);
      if (!this.ordered || attempt >= this.retry.maxAttempts) throw err;
      // The job stays active (its lock renewed by the worker) while it waits: the lane's next
      // job may not overtake it, in this process or another.
      await this.wait(this.retry.backoff(attempt));
      // Closing with releaseRetryingOnClose: the job is left active, never to end here (see the option).
      if (this.closing && this.opts.releaseRetryingOnClose) await new Promise(() => undefined);
    }
  }

  /** Jobs waiting for their next attempt: woken at once by `close`. */
  private readonly waiting = new Set<() => void>();

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

  private publish(id: string | undefined, result: JobResult): void {
    if (!id) return;
    if (result.state === "completed") this.processed++;
    else this.failed++;
    this.producer.publish(this.doneChannel, JSON.stringify({ id, result })).catch(() => {});
  }

  private announce(text: string): void {
    const { id, result } = JSON.parse(text) as { id: string; result: JobResult };
    for (const resolve of this.waiters.get(id) ?? []) resolve(result);
  }

  private async stored(id: string, lane: number): Promise<JobResult | undefined> {
    const job = await this.queues[lane]?.getJob(id);
    if (!job) return undefined;
    if (job.finishedOn && !job.failedReason) return { state: "completed", result: job.returnvalue ?? null };
    if (job.finishedOn) return { state: "failed", error: job.failedReason };
    return undefined;
  }

  async waitFor(id: string, lane: number, timeoutMs: number): Promise<JobResult | undefined> {
    const key = bullId(id);
    let resolveWait: (r: JobResult | undefined) => void = () => {};
    const announced = new Promise<JobResult | undefined>((r) => {
      resolveWait = r;
    });
    const set = this.waiters.get(key) ?? new Set();
    set.add(resolveWait);
    this.waiters.set(key, set);
    const timer = setTimeout(() => resolveWait(undefined), timeoutMs);
    try {
      // Registered first, then read: a completion between the two is still seen.
      const done = await this.stored(key, lane);
      return done ?? (timeoutMs > 0 ? await announced : undefined);
    } finally {
      clearTimeout(timer);
      set.delete(resolveWait);
      if (set.size === 0) this.waiters.delete(key);
    }
  }

  async counts() {
    const all = await Promise.all(
      this.queues.map((q) => q.getJobCounts("waiting", "active", "delayed", "prioritized", "waiting-children")),
    );
    const pending = all.reduce((sum, c) => sum + Object.values(c).reduce((a, b) => a + b, 0), 0);
    return { pending, processed: this.processed, failed: this.failed };
  }

  async healthy() {
    try {
      return (await withTimeout(this.producer.ping(), 1000)) === "PONG";
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    const release = this.opts.releaseRetryingOnClose === true && this.waiting.size > 0;
    for (const wake of this.waiting) wake();
    await Promise.all(this.workers.map((w) => w.close(release)));
    await Promise.all(this.queues.map((q) => q.close()));
    for (const c of [this.producer, this.subscriber, this.workerConnection]) c?.disconnect();
  }
}
