import type { Logger } from "@tocsin/core";
import { type Job, type Queue, UnrecoverableError } from "bullmq";
import { type Ending, errorText, type LaneBatches, runJobs, type WaitingJob } from "./bullmq-lane-batch.js";
import { type BatchWorker, type RetryPolicy, UnrecoverableJobError } from "./queue.js";

/** What an unordered queue's run uses of its queue (bullmq-queue.ts). */
export interface UnorderedLane {
  /** Set with a BatchWorker of maxJobs > 1: the jobs taken with the head. */
  batches: LaneBatches | undefined;
  retry: RetryPolicy;
  logger: Logger;
  /** Sends, in one round trip not awaited, the ends of the taken jobs that ended. */
  end(queue: Queue, endings: Ending[]): void;
}

/**
 * Unordered queue: the head and the jobs taken with it run once here. After a failure the head
 * fails through BullMQ (its retries wait in the delayed set) and the taken jobs not ended are
 * put back in the wait list, the failed one with an attempt counted (failed for good when
 * unrecoverable or out of attempts); nothing waits here for a retry.
 */
export async function runUnorderedHead(
  lane: UnorderedLane,
  job: Job,
  token: string | undefined,
  worker: BatchWorker,
  queue: Queue,
): Promise<unknown> {
  const { batches, retry, logger } = lane;
  const head: WaitingJob = { id: job.id ?? "", name: job.name, data: job.data, attempt: job.attemptsMade + 1 };
  const taken = batches ? await batches.take(queue, worker.maxJobs - 1, `${token}:batch`) : [];
  let run = [head, ...taken];
  let headResult: { result: unknown } | undefined;
  for (;;) {
    const { endings, culprit, error, ranFirst, rest } = await runJobs(worker, run, headResult ? undefined : head.id);
    if (ranFirst) headResult = ranFirst;
    if (!culprit) {
      lane.end(queue, endings);
      if (rest.length === 0) return headResult?.result;
      run = rest; // the runner ran fewer than it was given: the rest now
      continue;
    }
    const final = error instanceof UnrecoverableJobError || culprit.attempt >= retry.maxAttempts;
    const isHead = culprit.id === head.id;
    if (!isHead && final) endings.push({ id: culprit.id, ok: false, reason: errorText(error) });
    lane.end(queue, endings);
    const back = [
      ...(isHead || final ? [] : [{ id: culprit.id, failed: true }]),
      ...rest.map((j) => ({ id: j.id, failed: false })),
    ];
    if (batches && back.length)
      await batches.release(queue, back).catch((err: unknown) => {
        // Left active: BullMQ's stalled check puts them back once their lock expires.
        logger.warn({ err, queue: queue.name }, "cannot put a batch's jobs back");
      });
    if (isHead) throw error instanceof UnrecoverableJobError ? new UnrecoverableError(error.message) : error;
    return headResult?.result;
  }
}
