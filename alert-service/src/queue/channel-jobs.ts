import { type Logger, z } from "@tocsin/core";
import { type Delivery, RetryLaterError } from "../domain/channels/delivery.js";
import type { DeliveryJob, DeliveryJobs } from "../domain/channels/ports.js";
import { laneOf } from "./job-facts.js";
import { mailRetryPolicy } from "./mail-jobs.js";
import { type JobQueue, type JobRunner, type RetryPolicy, UnrecoverableJobError } from "./queue.js";

/** Channel-queue facts (docs/channels.md): names, job name, payload schema, idempotency ids, lanes, retries. */

/**
 * Lanes of the channel queue, one per destination (its lane by `dest:<id>`): a destination's
 * messages run one at a time, in order — per alert too — which also spaces them (at most one a
 * second) without any shared state. A destination that keeps failing holds its own lane.
 */
const DESTINATION_LANES = 32;
/**
 * Storm summaries wait for their window's end in a lane of their own: a delayed job at the head
 * of an ordered lane holds it, and a destination's lane must keep moving. Windows are aligned,
 * so summaries are due in the order they are added.
 */
const SUMMARY_LANE = DESTINATION_LANES;
export const CHANNEL_LANES = DESTINATION_LANES + 1;
export const channelQueueName = (lane: number) => `channel-lane-${lane}`;
const DELIVER = "deliver";

const laneOfDestination = (destinationId: number) => laneOf(`dest:${destinationId}`, DESTINATION_LANES);

const deliverySchema = z.object({
  requestId: z.string(),
  projectId: z.number().int().positive(),
  destinationId: z.number().int().positive(),
  eventType: z.string().min(1),
  eventId: z.string().min(1),
  alertId: z.number().int().nonnegative(),
  key: z.string().min(1),
});

/**
 * Retries of a delivery: exponential from `initialMs`, at most `maxMs` apart, as many attempts as
 * cover `forMs` (≥ 24 h) — and as many again, for the runs that only find a Retry-After not over
 * (the delivery itself stops once its first attempt is `forMs` old).
 */
export function channelRetryPolicy(opts: { initialMs: number; maxMs: number; forMs: number }): RetryPolicy {
  const policy = mailRetryPolicy(opts);
  return { maxAttempts: policy.maxAttempts * 2, backoff: policy.backoff };
}

/** The domain's DeliveryJobs port over a JobQueue: the job id is the delivery's key. */
export function createDeliveryJobs(queue: JobQueue): DeliveryJobs {
  return {
    async enqueue(jobs) {
      await queue.addBulk(
        jobs.map((job) => ({ id: job.key, name: DELIVER, lane: laneOfDestination(job.destinationId), data: job })),
      );
    },
    async enqueueLater(job, delayMs) {
      await queue.add({ id: job.key, name: DELIVER, lane: SUMMARY_LANE, data: job, delayMs });
    },
  };
}

/** Validates a delivery job and runs one attempt; invalid data is not retried, a RetryLaterError is. */
export function createDeliveryJobRunner(delivery: Delivery, logger: Logger): JobRunner {
  return async (job) => {
    const parsed = deliverySchema.safeParse(job.data);
    if (job.name !== DELIVER || !parsed.success) throw new UnrecoverableJobError(`invalid job ${job.name} ${job.id}`);
    const data: DeliveryJob = parsed.data;
    const log = logger.child({ requestId: data.requestId, jobId: job.id, attempt: job.attempt });
    try {
      await delivery.run(data, log);
      return null;
    } catch (err) {
      if (!(err instanceof RetryLaterError)) log.warn({ err }, "delivery job failed");
      throw err;
    }
  };
}
