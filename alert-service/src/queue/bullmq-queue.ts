import { type Logger, unavailable, withTimeout } from "@tocsin/core";
import { Job, Queue, UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { type Ending, errorText, type LaneBatches, laneBatches, runJobs, type WaitingJob } from "./bullmq-lane-batch.js";
import { type OrderedLane, runOrderedHead } from "./bullmq-ordered-lane.js";
import {
  bullId,
  type Carrier,
  carriersOf,
  type LanePacks,
  lanePacks,
  laneUnits,
  PACK_ID_PREFIX,
  PACK_NAME,
  PACK_WORKER_NAME,
  PackingCheck,
  recordedEnd,
} from "./bullmq-packs.js";
import { EndWaiters } from "./bullmq-waiters.js";
import { GroupAdd } from "./group-add.js";
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
import type { EndedJob } from "./sqlite/options.js";

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
  /** Told of the jobs this instance ended (the processing thread tells the main thread's instance, see `ended`). */
  onEnded?: (ended: EndedJob[]) => void;
}

/** A completion as told to another thread, which only counts it. */
const COMPLETED: JobResult = { state: "completed", result: null };

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: MAX_ATTEMPTS, backoff: backoffMs };

const jobOptions = (job: Carrier, retry: RetryPolicy, ordered: boolean) => ({
  jobId: job.id,
  // Ordered lanes retry inside the processor (see `process`); BullMQ runs such a job once.
  attempts: ordered ? 1 : retry.maxAttempts,
  // The worker's backoffStrategy computes each delay from the queue's RetryPolicy.
  backoff: { type: "policy" },
  ...(job.delayMs ? { delay: job.delayMs } : {}),
  // A pack's jobs' ends are in the lane's done hash: the pack itself (its jobs' data) goes at its end.
  removeOnComplete: job.name === PACK_NAME ? true : { age: 3600, count: 100_000 },
  removeOnFail: { age: 86_400 },
});

/** Jobs take milliseconds: a worker that died is noticed within ~10 s, not BullMQ's 30 s. */
const LOCK_MS = 10_000;

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
 * Finished jobs' ids are announced on a pub/sub channel for `waitFor`, which reads the outcome
 * from Redis: an announcement carries no results (a batch's would be built for nobody, most of
 * the time, and nobody waits for most jobs).
 */
export class BullmqJobQueue implements JobQueue {
  private readonly producer: Redis;
  private readonly subscriber: Redis;
  private workerConnection: Redis | undefined;
  private readonly queues: Queue[];
  private workers: Worker[] = [];
  /** The `waitFor` calls, woken when their job's end is announced (they then read it from Redis). */
  private readonly waiters = new EndWaiters(() => this.listen());
  private processed = 0;
  private failed = 0;
  private readonly lanes: number;
  private readonly prefix: string;
  private readonly doneChannel: string;
  private readonly ordered: boolean;
  private readonly retry: RetryPolicy;
  private closing = false;
  /** Set by `start` on ordered lanes, and on unordered ones with a BatchWorker of maxJobs > 1. */
  private batches: LaneBatches | undefined;
  /** Set by `start`: records ends (bullmq-packs.ts). */
  private packs: LanePacks | undefined;
  /** An ordered lane's jobs, waiting or running, for `counts`. */
  private readonly units: (queue: Queue) => Promise<number>;
  /** Set by `start` on ordered lanes: what their runs use (bullmq-ordered-lane.ts). */
  private orderedLane: OrderedLane | undefined;

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
    this.units = laneUnits(this.producer);
    this.packing = new PackingCheck(this.queues[0] as Queue, opts.logger);
    this.subscriber.on("message", (_channel, text: string) => this.waiters.hear(text));
  }

  /**
   * Announcements are heard from the first `waitFor` on: an instance nobody waits on (the
   * processing thread's) does not read every batch's ends. Resolves once subscribed (or when
   * Redis refused: `waitFor` still reads what is stored).
   */
  private subscribed: Promise<void> | undefined;

  private listen(): Promise<void> {
    this.subscribed ??= this.subscriber
      .subscribe(this.doneChannel)
      .then(() => undefined)
      .catch((err: unknown) => {
        this.subscribed = undefined;
        this.opts.logger.warn({ err }, "cannot subscribe to job completions");
      });
    return this.subscribed;
  }

  async add(job: QueuedJob): Promise<void> {
    return this.addBulk([job]);
  }

  /** Whether packs are written, from the last look at the lanes' workers (bullmq-packs.ts). */
  private readonly packing: PackingCheck;

  /** Adds go to Redis together while one write is on its way (group-add.ts). */
  private readonly adds = new GroupAdd((jobs) => this.write(jobs));

  /**
   * Joins the next write (group-add.ts): every lane's jobs in one pipeline (one socket write and
   * one round trip whatever the lanes; each lane's jobs stored in order); resolves once Redis
   * acknowledged every job of that write. On an ordered lane the undelayed jobs of one write
   * travel as one BullMQ job, a pack (see bullmq-packs.ts).
   */
  async addBulk(jobs: QueuedJob[]): Promise<void> {
    for (const job of jobs) if (!this.queues[job.lane]) throw new Error(`no lane ${job.lane}`);
    try {
      await withTimeout(this.adds.add(jobs), this.opts.addTimeoutMs ?? 1500);
    } catch (err) {
      throw unavailable("QUEUE_UNAVAILABLE", "The alert queue is unavailable, try again later", err, 5);
    }
  }

  /**
   * BullMQ's `Queue.addBulk` (`Job.createBulk`) does the same per queue: a BullMQ job per
   * carrier, `addJob` into a pipeline, then `exec`. The lanes are queues on one connection, so
   * their jobs share one pipeline rather than a pipeline, a socket write and a reply each: an
   * ioredis pipeline copies every script of the connection when made (BullMQ's fifty-odd), and
   * eight of them per write were a tenth of the accepting thread in a batch storm
   * (bench/notes/2026-12-02-one-pipeline.md). Not atomic, as before: a lane whose add failed
   * fails the write, the others' jobs stay added (adds are idempotent by job id).
   */
  private async write(jobs: QueuedJob[]): Promise<void> {
    const byLane = new Map<number, QueuedJob[]>();
    for (const job of jobs) {
      const list = byLane.get(job.lane);
      if (list) list.push(job);
      else byLane.set(job.lane, [job]);
    }
    const pack = this.ordered && (await this.packing.allowed());
    const carriers = (list: QueuedJob[]): Carrier[] =>
      pack ? carriersOf(list) : list.map((job) => ({ id: bullId(job.id), name: job.name, data: job.data, delayMs: job.delayMs }));
    const lanes = [...byLane].map(([lane, list]) => ({ queue: this.queues[lane] as Queue, list }));
    const [client] = await Promise.all(lanes.map(({ queue }) => queue.client));
    if (!client) return;
    const pipeline = client.pipeline();
    // As in createBulk, each `addJob` queues its command at once; its promise settles without the reply.
    const queued: Array<Promise<unknown>> = [];
    for (const { queue, list } of lanes)
      for (const carrier of carriers(list)) {
        const opts = { ...queue.jobsOpts, ...jobOptions(carrier, this.retry, this.ordered) };
        queued.push(new Job(queue, carrier.name, carrier.data, opts, opts.jobId).addJob(pipeline, { parentDependenciesKey: "" }));
      }
    const [results] = await Promise.all([pipeline.exec(), Promise.all(queued)]);
    for (const [err] of results ?? []) if (err) throw err;
  }

  /**
   * A BatchWorker gets the job BullMQ handed out and up to maxJobs - 1 jobs waiting behind it
   * (see process and bullmq-lane-batch.ts); a JobRunner, jobs one at a time.
   */
  async start(run: JobRunner | BatchWorker): Promise<void> {
    const batches = asBatchWorker(run);
    this.workerConnection = new Redis(this.opts.redisUrl, { maxRetriesPerRequest: null });
    this.workerConnection.on("error", (err) => this.opts.logger.debug({ err }, "redis worker connection error"));
    if (batches.maxJobs > 1 || this.ordered) this.batches = laneBatches(this.workerConnection, LOCK_MS);
    this.packs = lanePacks(this.workerConnection);
    if (this.batches && this.ordered)
      this.orderedLane = {
        batches: this.batches,
        packs: this.packs,
        retry: this.retry,
        record: (queue, units, carriers, packed) => this.record(queue, units, carriers, packed),
        pause: async (ms) => {
          await this.wait(ms);
          // Closing with releaseRetryingOnClose: the job is left active, never to end here (see the option).
          if (this.closing && this.opts.releaseRetryingOnClose) await new Promise(() => undefined);
        },
      };
    this.workers = this.queues.map((q) => {
      const worker = new Worker(q.name, (job: Job, token?: string) => this.process(job, token, batches, q), {
        connection: this.workerConnection as Redis,
        prefix: this.prefix,
        name: PACK_WORKER_NAME,
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
      // A pack's jobs are announced by `record`, not with the pack's end.
      worker.on("completed", (job) => {
        if (job.name !== PACK_NAME) this.publish(job.id, { state: "completed", result: job.returnvalue ?? null });
      });
      worker.on("failed", (job, err) => {
        if (!job || job.name === PACK_NAME) return;
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

  /** Ordered lane: bullmq-ordered-lane.ts; unordered queue: `processUnordered`. */
  private async process(job: Job, token: string | undefined, worker: BatchWorker, queue: Queue): Promise<unknown> {
    if (!this.ordered) return this.processUnordered(job, token, worker, queue);
    return runOrderedHead(this.orderedLane as OrderedLane, job, worker, queue);
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
      const { endings, culprit, error, ranFirst, rest } = await runJobs(worker, run, headResult ? undefined : head.id);
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

  /** Batch ends sent and not yet answered: `close` waits for them before it disconnects. */
  private readonly ending = new Set<Promise<void>>();

  private track(sent: Promise<void>): void {
    const done = sent.finally(() => this.ending.delete(done));
    this.ending.add(done);
  }

  /** Unordered queue: the taken jobs of a batch ended in one round trip, and announced. */
  private end(queue: Queue, from: "active", endings: Ending[]): void {
    const packs = this.packs;
    if (!packs || endings.length === 0) return;
    this.track(
      packs
        .record(queue, from, [], endings)
        // Not ended (Redis away): they run again once their lock expired (jobs are idempotent).
        .catch((err: unknown) => {
          this.opts.logger.warn({ err, queue: queue.name }, "cannot end a batch's taken jobs");
          return new Set<string>();
        })
        .then((ended) => this.announceEnds(endings.filter((e) => ended.has(e.id)))),
    );
  }

  /**
   * Ordered lane, in one round trip: the jobs' ends recorded, and the carriers behind the head
   * whose jobs all ended ended (`carriers`: a job alone with its outcome, a pack deleted).
   * Announced: the packed jobs, and the jobs alone this ended (the head ends through BullMQ,
   * whose events announce it).
   */
  private record(queue: Queue, units: Ending[], carriers: Ending[], packed: Set<string>): void {
    const packs = this.packs;
    if (!packs || (units.length === 0 && carriers.length === 0)) return;
    const alone = carriers.filter((c) => !c.id.startsWith(PACK_ID_PREFIX));
    this.track(
      packs.record(queue, "wait", units, carriers).then(
        (ended) => this.announceEnds([...units.filter((u) => packed.has(u.id)), ...alone.filter((c) => ended.has(c.id))]),
        // Not recorded (Redis away): they run again, with their carrier (jobs are idempotent).
        (err: unknown) => this.opts.logger.warn({ err, queue: queue.name }, "cannot record a batch's ends"),
      ),
    );
  }

  /** Jobs that another thread's instance ended (its `onEnded`): counted here; waiters hear of them through Redis. */
  ended(jobs: EndedJob[]): void {
    for (const job of jobs)
      if (job.result.state === "completed") this.processed++;
      else this.failed++;
  }

  /** Counts and announces the jobs a batch ended (a failure logged here: BullMQ's events log the head's). */
  private announceEnds(announced: Ending[]): void {
    for (const e of announced) if (!e.ok) this.opts.logger.warn({ jobId: e.id, reason: e.reason }, "job failed for good");
    this.tell(announced.map((e) => ({ id: e.id, result: e.ok ? COMPLETED : { state: "failed", error: e.reason } })));
  }

  /**
   * Counts ended jobs, announces their ids on the done channel (waiters read the ends from Redis),
   * and tells the other thread, which only counts them: outcomes without results.
   */
  private tell(jobs: EndedJob[]): void {
    if (jobs.length === 0) return;
    this.ended(jobs);
    this.producer.publish(this.doneChannel, JSON.stringify(jobs.map((j) => j.id))).catch(() => {});
    this.opts.onEnded?.(jobs);
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

  /** A job BullMQ ended itself (a job alone at the head), from the worker's events. */
  private publish(id: string | undefined, result: JobResult): void {
    if (id) this.tell([{ id, result: result.state === "completed" ? COMPLETED : result }]);
  }

  private async stored(id: string, lane: number): Promise<JobResult | undefined> {
    const queue = this.queues[lane];
    if (!queue) return undefined;
    const recorded = this.ordered ? await recordedEnd(queue, id) : undefined;
    if (recorded) return recorded;
    // Unordered queues, and ordered jobs ended by a version before packs.
    const job = await queue.getJob(id);
    if (!job?.finishedOn) return undefined;
    // By the set it ended in: a job that failed, was retried and then completed keeps its
    // `failedReason` from the failed attempt.
    const state = await job.getState();
    if (state === "completed") return { state: "completed", result: job.returnvalue ?? null };
    if (state === "failed") return { state: "failed", error: job.failedReason };
    return undefined;
  }

  async waitFor(id: string, lane: number, timeoutMs: number, signal?: AbortSignal): Promise<JobResult | undefined> {
    const key = bullId(id);
    return this.waiters.waitFor(key, timeoutMs, () => this.stored(key, lane), signal);
  }

  /** `pending` counts jobs, a pack as its size. */
  async counts() {
    const all = await Promise.all(
      this.queues.map(async (q) => {
        if (!this.ordered) return q.getJobCounts("waiting", "active", "delayed", "prioritized", "waiting-children");
        const [units, others] = await Promise.all([this.units(q), q.getJobCounts("delayed", "prioritized")]);
        return { units, ...others };
      }),
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
