import { type Logger, unavailable, withTimeout } from "@tocsin/core";
import { type Job, Queue } from "bullmq";
import { Redis } from "ioredis";
import { JobEnds } from "./bullmq-ends.js";
import { type LaneBatches, laneBatches } from "./bullmq-lane-batch.js";
import { type OrderedLane, runOrderedHead } from "./bullmq-ordered-lane.js";
import { bullId, type LanePacks, lanePacks, laneUnits, PackingCheck, recordedEnd } from "./bullmq-packs.js";
import { runUnorderedHead, type UnorderedLane } from "./bullmq-unordered-lane.js";
import { EndWaiters } from "./bullmq-waiters.js";
import { BullmqWorkers, LOCK_MS } from "./bullmq-workers.js";
import { writeJobs } from "./bullmq-writes.js";
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

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: MAX_ATTEMPTS, backoff: backoffMs };

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
  /** The lanes' workers: made, started, paused for retries, closed (bullmq-workers.ts). */
  private readonly workers: BullmqWorkers;
  /** The `waitFor` calls, woken when their job's end is announced (they then read it from Redis). */
  private readonly waiters = new EndWaiters(() => this.listen());
  /** The jobs' ends: recorded, counted, announced (bullmq-ends.ts). */
  private readonly ends: JobEnds;
  private readonly lanes: number;
  private readonly prefix: string;
  private readonly doneChannel: string;
  private readonly ordered: boolean;
  private readonly retry: RetryPolicy;
  /** Set by `start` on ordered lanes, and on unordered ones with a BatchWorker of maxJobs > 1. */
  private batches: LaneBatches | undefined;
  /** Set by `start`: records ends (bullmq-packs.ts). */
  private packs: LanePacks | undefined;
  /** An ordered lane's jobs, waiting or running, for `counts`. */
  private readonly units: (queue: Queue) => Promise<number>;
  /** Set by `start` on ordered lanes: what their runs use (bullmq-ordered-lane.ts). */
  private orderedLane: OrderedLane | undefined;
  /** Set by `start` on unordered queues: what their runs use (bullmq-unordered-lane.ts). */
  private unorderedLane: UnorderedLane | undefined;

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
    this.ends = new JobEnds({
      producer: this.producer,
      doneChannel: this.doneChannel,
      logger: opts.logger,
      onEnded: opts.onEnded,
    });
    this.workers = new BullmqWorkers(opts, { prefix: this.prefix, ordered: this.ordered, retry: this.retry, ends: this.ends });
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

  /** One write of `addBulk`'s jobs (bullmq-writes.ts), packed while the lanes' workers read packs. */
  private async write(jobs: QueuedJob[]): Promise<void> {
    const pack = this.ordered && (await this.packing.allowed());
    await writeJobs(this.queues, jobs, { ordered: this.ordered, retry: this.retry, pack });
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
        record: (queue, units, carriers, packed) => this.ends.record(this.packs, queue, units, carriers, packed),
        pause: (ms) => this.workers.pause(ms),
      };
    if (!this.ordered)
      this.unorderedLane = {
        batches: this.batches,
        retry: this.retry,
        logger: this.opts.logger,
        end: (queue, endings) => this.ends.end(this.packs, queue, endings),
      };
    this.workers.start(this.queues, this.workerConnection, (job, token, q) => this.process(job, token, batches, q));
  }

  /** Ordered lane: bullmq-ordered-lane.ts; unordered queue: bullmq-unordered-lane.ts. */
  private async process(job: Job, token: string | undefined, worker: BatchWorker, queue: Queue): Promise<unknown> {
    if (!this.ordered) return runUnorderedHead(this.unorderedLane as UnorderedLane, job, token, worker, queue);
    return runOrderedHead(this.orderedLane as OrderedLane, job, worker, queue);
  }

  /** Jobs that another thread's instance ended (its `onEnded`): counted here; waiters hear of them through Redis. */
  ended(jobs: EndedJob[]): void {
    this.ends.counted(jobs);
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
    return { pending, ...this.ends.totals() };
  }

  async healthy() {
    try {
      return (await withTimeout(this.producer.ping(), 1000)) === "PONG";
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.workers.close();
    await this.ends.settled();
    await Promise.all(this.queues.map((q) => q.close()));
    for (const c of [this.producer, this.subscriber, this.workerConnection]) c?.disconnect();
  }
}
