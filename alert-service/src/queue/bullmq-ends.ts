import type { Logger } from "@tocsin/core";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Ending } from "./bullmq-lane-batch.js";
import { type LanePacks, PACK_ID_PREFIX } from "./bullmq-packs.js";
import type { JobResult } from "./queue.js";
import type { EndedJob } from "./sqlite/options.js";

/** A completion as told to another thread, which only counts it. */
const COMPLETED: JobResult = { state: "completed", result: null };

export interface JobEndsOptions {
  /** The queue's producer connection: announcements are published on it. */
  producer: Redis;
  /** The pub/sub channel `waitFor` listens on. */
  doneChannel: string;
  logger: Logger;
  /** Told of the jobs this instance ended (see BullmqQueueOptions.onEnded). */
  onEnded?: ((ended: EndedJob[]) => void) | undefined;
}

/**
 * The ends of a BullmqJobQueue's jobs: a batch's ends recorded in Redis (bullmq-packs.ts), the
 * ended jobs counted, their ids announced on the done channel (waiters read the ends from Redis)
 * and told to the other thread, which only counts them: outcomes without results.
 */
export class JobEnds {
  private processed = 0;
  private failed = 0;
  /** Batch ends sent and not yet answered: `close` waits for them before it disconnects. */
  private readonly ending = new Set<Promise<void>>();

  constructor(private readonly opts: JobEndsOptions) {}

  /** Unordered queue: the taken jobs of a batch ended in one round trip, and announced. */
  end(packs: LanePacks | undefined, queue: Queue, endings: Ending[]): void {
    if (!packs || endings.length === 0) return;
    this.track(
      packs
        .record(queue, "active", [], endings)
        // Not ended (Redis away): they run again once their lock expired (jobs are idempotent).
        .catch((err: unknown) => {
          this.opts.logger.warn({ err, queue: queue.name }, "cannot end a batch's taken jobs");
          return new Set<string>();
        })
        .then((ended) => this.announce(endings.filter((e) => ended.has(e.id)))),
    );
  }

  /**
   * Ordered lane, in one round trip: the jobs' ends recorded, and the carriers behind the head
   * whose jobs all ended ended (`carriers`: a job alone with its outcome, a pack deleted).
   * Announced: the packed jobs, and the jobs alone this ended (the head ends through BullMQ,
   * whose events announce it).
   */
  record(packs: LanePacks | undefined, queue: Queue, units: Ending[], carriers: Ending[], packed: Set<string>): void {
    if (!packs || (units.length === 0 && carriers.length === 0)) return;
    const alone = carriers.filter((c) => !c.id.startsWith(PACK_ID_PREFIX));
    this.track(
      packs.record(queue, "wait", units, carriers).then(
        (ended) => this.announce([...units.filter((u) => packed.has(u.id)), ...alone.filter((c) => ended.has(c.id))]),
        // Not recorded (Redis away): they run again, with their carrier (jobs are idempotent).
        (err: unknown) => this.opts.logger.warn({ err, queue: queue.name }, "cannot record a batch's ends"),
      ),
    );
  }

  /** A job BullMQ ended itself (a job alone at the head), from the worker's events. */
  published(id: string | undefined, result: JobResult): void {
    if (id) this.tell([{ id, result: result.state === "completed" ? COMPLETED : result }]);
  }

  /** Jobs that another thread's instance ended (its `onEnded`): counted here; waiters hear of them through Redis. */
  counted(jobs: EndedJob[]): void {
    for (const job of jobs)
      if (job.result.state === "completed") this.processed++;
      else this.failed++;
  }

  /** Jobs ended so far, completed and failed for good. */
  totals(): { processed: number; failed: number } {
    return { processed: this.processed, failed: this.failed };
  }

  /** Resolves once every batch end sent has been answered. */
  async settled(): Promise<void> {
    await Promise.all(this.ending);
  }

  private track(sent: Promise<void>): void {
    const done = sent.finally(() => this.ending.delete(done));
    this.ending.add(done);
  }

  /** Counts and announces the jobs a batch ended (a failure logged here: BullMQ's events log the head's). */
  private announce(announced: Ending[]): void {
    for (const e of announced) if (!e.ok) this.opts.logger.warn({ jobId: e.id, reason: e.reason }, "job failed for good");
    this.tell(announced.map((e) => ({ id: e.id, result: e.ok ? COMPLETED : { state: "failed", error: e.reason } })));
  }

  private tell(jobs: EndedJob[]): void {
    if (jobs.length === 0) return;
    this.counted(jobs);
    this.opts.producer.publish(this.opts.doneChannel, JSON.stringify(jobs.map((j) => j.id))).catch(() => {});
    this.opts.onEnded?.(jobs);
  }
}
