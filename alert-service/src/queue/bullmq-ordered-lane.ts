import type { Job, Queue } from "bullmq";
import { UnrecoverableError } from "bullmq";
import { type Ending, errorText, type LaneBatches, runJobs, type WaitingJob } from "./bullmq-lane-batch.js";
import { type LanePacks, PACK_NAME, unitsOf } from "./bullmq-packs.js";
import { type BatchWorker, type RetryPolicy, UnrecoverableJobError } from "./queue.js";

/** What an ordered lane's run uses of its queue (bullmq-queue.ts). */
export interface OrderedLane {
  batches: LaneBatches;
  packs: LanePacks;
  retry: RetryPolicy;
  /**
   * Sends, in one round trip not awaited, the jobs' ends and the ends of the carriers behind the
   * head whose jobs all ended (`packed`: the ids that came in packs).
   */
  record(queue: Queue, units: Ending[], carriers: Ending[], packed: Set<string>): void;
  /** Waits `ms` before a failed job's next attempt (never resolving when the job is to be left active). */
  pause(ms: number): Promise<void>;
}

/**
 * Ordered lane: the head job BullMQ handed out, unpacked (bullmq-packs.ts), and the jobs
 * waiting behind it, run in batches of up to the worker's maxJobs until the head's jobs have
 * all ended. A failing job retries here with the RetryPolicy's backoff while the head stays
 * active, so the lane's next jobs may not overtake it, in this process or another; the jobs
 * behind a failure wait for a later batch. A job that failed for good is recorded as failed
 * and does not hold the lane. Jobs whose end is recorded already (a re-added id, a carrier
 * run again after a crash) are not run again. The head's own end is BullMQ's (return), after
 * the records sent before it on the same connection.
 */
export async function runOrderedHead(lane: OrderedLane, job: Job, worker: BatchWorker, queue: Queue): Promise<unknown> {
  const { batches, packs, retry } = lane;
  const head = { id: job.id ?? "", name: job.name, data: job.data, attempt: job.attemptsMade + 1 };
  const headUnits = unitsOf(head);
  const attempts = new Map<string, number>();
  const ended = new Set<string>();
  /** Packed jobs looked up in the done hash already: no other worker runs this lane while the head is held. */
  const looked = new Set<string>();
  /** The head's outcome when it is a job alone (a pack's end carries none). */
  let headEnd: Ending | undefined;
  for (;;) {
    const headLeft = headUnits.filter((u) => !ended.has(u.id));
    const room = worker.maxJobs - headLeft.length;
    // Whole carriers only: one run in part would be read and parsed again as the next head.
    const behind = await batches.peek(queue, room);
    const carriers = behind.map((c) => ({ id: c.id, packed: c.name === PACK_NAME, units: unitsOf(c) }));
    // Packed jobs may have ended before (a re-added id, a pack run again after a crash); a job
    // alone is BullMQ's own (its id is its job's, added once).
    const packed = [...(head.name === PACK_NAME ? headLeft : []), ...carriers.filter((c) => c.packed).flatMap((c) => c.units)];
    const unseen = packed.map((u) => u.id).filter((id) => !ended.has(id) && !looked.has(id));
    for (const id of unseen) looked.add(id);
    for (const id of await packs.known(queue, unseen)) ended.add(id);
    const run: WaitingJob[] = [];
    const taken = new Set<string>();
    for (const u of [...headLeft, ...carriers.flatMap((c) => c.units)]) {
      if (run.length >= worker.maxJobs) break;
      if (ended.has(u.id) || taken.has(u.id)) continue;
      taken.add(u.id);
      run.push({ ...u, attempt: attempts.get(u.id) ?? u.attempt });
    }
    const { endings, culprit, error } = run.length ? await runJobs(worker, run, undefined) : { endings: [] as Ending[] };
    const final = culprit !== undefined && (error instanceof UnrecoverableJobError || culprit.attempt >= retry.maxAttempts);
    if (culprit && final) endings.push({ id: culprit.id, ok: false, reason: errorText(error) });
    for (const e of endings) ended.add(e.id);
    headEnd = endings.find((e) => e.id === head.id) ?? headEnd;
    // Recorded: every job's end (a job alone too: a later pack may hold its id); ended: the
    // carriers behind the head whose jobs all ended (a job alone with its own outcome, a pack deleted).
    const byId = new Map(endings.map((e) => [e.id, e]));
    const ends: Ending[] = carriers
      .filter((c) => c.units.every((u) => ended.has(u.id)))
      .map((c) => (c.packed ? { id: c.id, ok: true, result: null } : (byId.get(c.id) ?? { id: c.id, ok: true, result: null })));
    const packedIds = new Set(packed.map((u) => u.id));
    // Not awaited: the head's end through BullMQ (and any later peek) goes out on the same
    // connection after it, so Redis runs them in that order; one round trip saved per batch.
    lane.record(queue, endings, ends, packedIds);
    if (culprit && !final) {
      attempts.set(culprit.id, culprit.attempt + 1);
      await lane.pause(retry.backoff(culprit.attempt));
      continue;
    }
    if (!headUnits.every((u) => ended.has(u.id))) continue;
    if (head.name === PACK_NAME || !headEnd) return null;
    // A job alone ends through BullMQ, as completed or failed; the worker's events announce it.
    if (headEnd.ok) return headEnd.result;
    throw new UnrecoverableError(headEnd.reason);
  }
}
