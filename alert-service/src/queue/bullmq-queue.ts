import { type Logger, unavailable, withTimeout } from "@tocsin/core";
import { type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { type Ending, type LaneBatches, laneBatches, type WaitingJob } from "./bullmq-lane-batch.js";
import { laneQueueName, QUEUE_PREFIX } from "./job-facts.js";
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

/** Jobs take milliseconds: a worker that died is noticed within ~10 s, not BullMQ's 30 s. */
const LOCK_MS = 10_000;

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

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
  /** Set by `start` on ordered lanes with a BatchWorker of maxJobs > 1. */
  private batches: LaneBatches | undefined;

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

  /**
   * A BatchWorker gets the job BullMQ handed out and up to maxJobs - 1 jobs waiting behind it
   * (see process and bullmq-lane-batch.ts); a JobRunner, jobs one at a time.
   */
  async start(run: JobRunner | BatchWorker): Promise<void> {
    const batches = asBatchWorker(run);
    this.workerConnection = new Redis(this.opts.redisUrl, { maxRetriesPerRequest: null });
    this.workerConnection.on("error", (err) => this.opts.logger.debug({ err }, "redis worker connection error"));
    if (batches.maxJobs > 1) this.batches = laneBatches(this.workerConnection, LOCK_MS);
    this.workers = this.queues.map((q) => {
      const worker = new Worker(q.name, (job: Job, token?: string) => this.process(job, token, batches, q), {
        connection: this.workerConnection as Redis,
        prefix: this.prefix,
        concurrency: this.ordered ? 1 : (this.opts.concurrency ?? 1),
        // Ordered lanes start once their global concurrency is set (see `run`).
        autorun: !this.ordered,
        lockDuration: LOCK_MS,
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

  /**
   * The head job BullMQ handed out, with the jobs behind it (up to the worker's maxJobs, see
   * bullmq-lane-batch.ts) run as one batch. Ordered lane: a failing job retries here with the
   * RetryPolicy's backoff while the head stays active, so the lane's next jobs may not overtake
   * it, in this process or another; the jobs behind a failure wait for a later batch. A job of
   * the batch that failed for good is ended as failed; the head's own end is BullMQ's (return or
   * throw), after the others'.
   */
  private async process(job: Job, token: string | undefined, worker: BatchWorker, queue: Queue): Promise<unknown> {
    if (!this.ordered) return this.processUnordered(job, token, worker, queue);
    const batches = this.batches;
    const head: WaitingJob = { id: job.id ?? "", name: job.name, data: job.data, attempt: job.attemptsMade + 1 };
    const attempts = new Map<string, number>([[head.id, head.attempt]]);
    let headResult: { result: unknown } | undefined;
    for (;;) {
      const behind = batches ? await batches.peek(queue, worker.maxJobs - (headResult ? 0 : 1)) : [];
      const run = [...(headResult ? [] : [head]), ...behind].map((j) => ({ ...j, attempt: attempts.get(j.id) ?? 1 }));
      if (run.length === 0) return headResult?.result;
      const { endings, culprit, error, ranFirst } = await this.runBatch(worker, run, headResult ? undefined : head.id);
      if (ranFirst) headResult = ranFirst;
      const final =
        culprit !== undefined && (error instanceof UnrecoverableJobError || culprit.attempt >= this.retry.maxAttempts);
      if (culprit && final && culprit.id !== head.id) endings.push({ id: culprit.id, ok: false, reason: errorText(error) });
      // Not awaited: the head's end through BullMQ (and any later peek) goes out on the same
      // connection after it, so Redis runs them in that order; one round trip saved per batch.
      this.end(queue, "wait", endings);
      if (culprit?.id === head.id && final)
        throw error instanceof UnrecoverableJobError ? new UnrecoverableError(error.message) : error;
      if (!culprit || final) return headResult?.result; // the rest waits for the lane's next batch
      attempts.set(culprit.id, culprit.attempt + 1);
      await this.wait(this.retry.backoff(culprit.attempt));
      // Closing with releaseRetryingOnClose: the job is left active, never to end here (see the option).
      if (this.closing && this.opts.releaseRetryingOnClose) await new Promise(() => undefined);
    }
  }

  /**
   * Unordered queue: the head and the jobs taken with it run once here. After a failure the head
   * fails through BullMQ (its retries wait in the delayed set) and the taken jobs not ended are
   * put back in the wait list, the failed one with an attempt counted (failed for good when
   * unrecoverable or out of attempts); nothing waits here for a retry.
   */
  private async processUnordered(job: Job, token: string | undefined, worker: BatchWorker, queue: Queue): Promise<unknown> {
    const head: WaitingJob = { id: job.id ?? "", name: job.name, data: job.data, attempt: job.attemptsMade + 1 };
    const taken = this.batches ? await this.batches.take(queue, worker.maxJobs - 1, `${token}:batch`) : [];
    let run = [head, ...taken];
    let headResult: { result: unknown } | undefined;
    for (;;) {
      const { endings, culprit, error, ranFirst, rest } = await this.runBatch(worker, run, headResult ? undefined : head.id);
      if (ranFirst) headResult = ranFirst;
      if (!culprit) {
        this.end(queue, "active", endings);
        if (rest.length === 0) return headResult?.result;
        run = rest; // the runner ran fewer than it was given: the rest now
        continue;
      }
      const final = error instanceof UnrecoverableJobError || culprit.attempt >= this.retry.maxAttempts;
      const isHead = culprit.id === head.id;
      if (!isHead && final) endings.push({ id: culprit.id, ok: false, reason: errorText(error) });
      this.end(queue, "active", endings);
      const back = [
        ...(isHead || final ? [] : [{ id: culprit.id, failed: true }]),
        ...rest.map((j) => ({ id: j.id, failed: false })),
      ];
      if (this.batches && back.length)
        await this.batches.release(queue, back).catch((err: unknown) => {
          // Left active: BullMQ's stalled check puts them back once their lock expires.
          this.opts.logger.warn({ err, queue: queue.name }, "cannot put a batch's jobs back");
        });
      if (isHead) throw error instanceof UnrecoverableJobError ? new UnrecoverableError(error.message) : error;
      return headResult?.result;
    }
  }

  /**
   * Runs a batch: the endings of the jobs that ran (the job `firstId`, the head, apart), the job
   * that failed (or, when the runner ran none, the first) and its error, the jobs not reached.
   */
  private async runBatch(worker: BatchWorker, run: WaitingJob[], firstId: string | undefined) {
    const outcomes = await worker.batch(run).catch((error: unknown) => [{ ok: false as const, error }]);
    const endings: Ending[] = [];
    let ranFirst: { result: unknown } | undefined;
    let i = 0;
    for (; i < run.length && outcomes[i]?.ok; i++) {
      const { id } = run[i] as WaitingJob;
      const result = (outcomes[i] as { result: unknown }).result;
      if (id === firstId) ranFirst = { result };
      else endings.push({ id, ok: true, result });
    }
    const failed = i < run.length && (i < outcomes.length || outcomes.length === 0);
    const outcome = outcomes[i];
    return {
      endings,
      ranFirst,
      culprit: failed ? run[i] : undefined,
      error: outcome && !outcome.ok ? outcome.error : new Error("the batch runner ran no job"),
      rest: run.slice(failed ? i + 1 : i),
    };
  }

  /** Batch ends sent and not yet answered: `close` waits for them before it disconnects. */
  private readonly ending = new Set<Promise<void>>();

  private end(queue: Queue, from: "wait" | "active", endings: Ending[]): void {
    if (!this.batches || endings.length === 0) return;
    const sent = this.endBatch(this.batches, queue, from, endings).finally(() => this.ending.delete(sent));
    this.ending.add(sent);
  }

  /** Ends the other jobs of a batch in one round trip and announces them. */
  private async endBatch(batches: LaneBatches, queue: Queue, from: "wait" | "active", endings: Ending[]): Promise<void> {
    // Not ended (Redis away): they run again, after the head or once their lock expired (jobs are idempotent).
    const ended = await batches.finish(queue, from, endings).catch((err: unknown) => {
      this.opts.logger.warn({ err, queue: queue.name }, "cannot end a batch's waiting jobs");
      return new Set<string>();
    });
    const announced = endings.filter((e) => ended.has(e.id));
    for (const e of announced) {
      if (e.ok) this.processed++;
      else {
        this.failed++;
        this.opts.logger.warn({ jobId: e.id, reason: e.reason }, "job failed for good");
      }
    }
    const message = announced.map((e) => ({
      id: e.id,
      result: e.ok ? { state: "completed", result: e.result ?? null } : { state: "failed", error: e.reason },
    }));
    if (message.length) this.producer.publish(this.doneChannel, JSON.stringify(message)).catch(() => {});
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

  /** One job's end, or a batch's (an array). */
  private announce(text: string): void {
    type Done = { id: string; result: JobResult };
    const parsed = JSON.parse(text) as Done | Done[];
    for (const { id, result } of Array.isArray(parsed) ? parsed : [parsed])
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
    await Promise.all(this.ending);
    await Promise.all(this.queues.map((q) => q.close()));
    for (const c of [this.producer, this.subscriber, this.workerConnection]) c?.disconnect();
  }
}
