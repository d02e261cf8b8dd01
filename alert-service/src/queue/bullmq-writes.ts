import { Job, type Queue } from "bullmq";
import { bullId, type Carrier, carriersOf, PACK_NAME } from "./bullmq-packs.js";
import { laneGroups } from "./lane-groups.js";
import type { QueuedJob, RetryPolicy } from "./queue.js";

const jobOptions = (job: Carrier, retry: RetryPolicy, ordered: boolean) => ({
  jobId: job.id,
  // Ordered lanes retry inside the processor (bullmq-ordered-lane.ts); BullMQ runs such a job once.
  attempts: ordered ? 1 : retry.maxAttempts,
  // The worker's backoffStrategy computes each delay from the queue's RetryPolicy.
  backoff: { type: "policy" },
  ...(job.delayMs ? { delay: job.delayMs } : {}),
  // A pack's jobs' ends are in the lane's done hash: the pack itself (its jobs' data) goes at its end.
  removeOnComplete: job.name === PACK_NAME ? true : { age: 3600, count: 100_000 },
  removeOnFail: { age: 86_400 },
});

/**
 * Writes jobs to their lanes' queues (`queues[job.lane]`), each lane's in order; `pack`: an
 * ordered lane's undelayed jobs travel as one BullMQ job, a pack (bullmq-packs.ts).
 *
 * BullMQ's `Queue.addBulk` (`Job.createBulk`) does the same per queue: a BullMQ job per
 * carrier, `addJob` into a pipeline, then `exec`. The lanes are queues on one connection, so
 * their jobs share one pipeline rather than a pipeline, a socket write and a reply each: an
 * ioredis pipeline copies every script of the connection when made (BullMQ's fifty-odd), and
 * eight of them per write were a tenth of the accepting thread in a batch storm
 * (bench/notes/2026-12-02-one-pipeline.md). Not atomic, as before: a lane whose add failed
 * fails the write, the others' jobs stay added (adds are idempotent by job id).
 */
export async function writeJobs(
  queues: Queue[],
  jobs: QueuedJob[],
  { ordered, retry, pack }: { ordered: boolean; retry: RetryPolicy; pack: boolean },
): Promise<void> {
  const byLane = laneGroups(jobs);
  const carriers = (list: QueuedJob[]): Carrier[] =>
    pack ? carriersOf(list) : list.map((job) => ({ id: bullId(job.id), name: job.name, data: job.data, delayMs: job.delayMs }));
  const lanes = [...byLane].map(([lane, list]) => ({ queue: queues[lane] as Queue, list }));
  const [client] = await Promise.all(lanes.map(({ queue }) => queue.client));
  if (!client) return;
  const pipeline = client.pipeline();
  // As in createBulk, each `addJob` queues its command at once; its promise settles without the reply.
  const queued: Array<Promise<unknown>> = [];
  for (const { queue, list } of lanes)
    for (const carrier of carriers(list)) {
      const opts = { ...queue.jobsOpts, ...jobOptions(carrier, retry, ordered) };
      queued.push(new Job(queue, carrier.name, carrier.data, opts, opts.jobId).addJob(pipeline, { parentDependenciesKey: "" }));
    }
  const [results] = await Promise.all([pipeline.exec(), Promise.all(queued)]);
  for (const [err] of results ?? []) if (err) throw err;
}
