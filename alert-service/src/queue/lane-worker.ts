import { AppError, type Logger, type z } from "@tocsin/core";
import type { AutoResolveJob, IncidentJob, ProcessAlertJob, StatusChangeJob, UnsilenceJob } from "../domain/alerts/ports.js";
import type { AlertJobHandlers } from "../domain/alerts/use-cases.js";
import type { PageRuleJob, PageStartJob } from "../domain/paging/ports.js";
import {
  autoResolveSchema,
  incidentSchema,
  JOB_NAMES,
  pageRuleSchema,
  pageStartSchema,
  processAlertSchema,
  statusChangeSchema,
  unsilenceSchema,
} from "./job-facts.js";
import { type BatchWorker, type JobOutcome, type RunningJob, UnrecoverableJobError } from "./queue.js";

/** The lane workers' side: job data validated, handlers run, consecutive process-alert jobs together. */

/** What the lane workers run: the job handlers of processing (process-alert jobs in batches only). */
export type JobHandlers = Omit<AlertJobHandlers, "processAlert">;

/** How many due jobs of a lane one batch takes (one transaction for all of them on SQLite). */
const JOB_BATCH = 64;

/**
 * The same in the processing thread on the SQLite queue, larger: more new alerts per alert.db
 * commit share the random leaves of the fingerprint index, the commit's WAL writes and the queue's
 * batch end (`bench/sqlite-processing.mjs --alerts 40000`: 53 → 43–45 → 38 µs wall per new alert
 * at 32, 128 and 256; the storm's batches at 128 → 256: 9,597–9,633 → 10,371–10,403 processed
 * alerts/s, bench/notes/2026-11-28-main-thread-writes.md). Its transaction holds alert.db's write
 * lock for ≈ 10 ms, which every write of the main thread waits for on a timer, off the event loop
 * (`writeWhenFree`, GroupCommit). See docs/architecture.md, "The processing thread".
 */
export const THREAD_JOB_BATCH = 256;

/**
 * The processing thread's batches on BullMQ's lanes. 256 measured no faster than 128 while a
 * batch took part of a pack (6,226–6,355 against 6,702–6,989 alerts/s); since batches take whole
 * carriers (bullmq-ordered-lane.ts), 128 fits one of a storm's packs of ≈ 100 jobs and 256 two:
 * 10,695–12,848 against 9,722–10,294 processed alerts/s, alert-service 0.10–0.12 against 0.12–0.13 ms
 * of CPU per alert, Redis 0.015–0.017 against 0.021–0.022 (bench/notes/2026-12-02-whole-carriers.md).
 */
export const THREAD_BULLMQ_BATCH = 256;

/** Lane batches in flight at once with BullMQ and the SQLite stores (see createJobWorker's turns). */
export const BULLMQ_TURNS = 4;

const SCHEMAS: Record<string, z.ZodType> = {
  [JOB_NAMES.processAlert]: processAlertSchema,
  [JOB_NAMES.incident]: incidentSchema,
  [JOB_NAMES.autoResolveApply]: autoResolveSchema,
  [JOB_NAMES.setStatus]: statusChangeSchema,
  [JOB_NAMES.pageStartApply]: pageStartSchema,
  [JOB_NAMES.pageRuleApply]: pageRuleSchema,
  [JOB_NAMES.unsilenceApply]: unsilenceSchema,
};

type Parsed = { job: RunningJob; data: { requestId: string; log?: Record<string, string> } };

function parse(job: RunningJob): Parsed | undefined {
  const parsed = SCHEMAS[job.name]?.safeParse(job.data);
  return parsed?.success ? { job, data: parsed.data as Parsed["data"] } : undefined;
}

/** A lane job other than process-alert; resolves to its result. */
async function runOne(handlers: JobHandlers, { job, data }: Parsed, logger: Logger): Promise<unknown> {
  if (job.name === JOB_NAMES.setStatus) return handlers.setStatus(data as StatusChangeJob, logger);
  if (job.name === JOB_NAMES.autoResolveApply) await handlers.autoResolve(data as AutoResolveJob, logger);
  else if (job.name === JOB_NAMES.pageStartApply) await handlers.pageStart(data as unknown as PageStartJob, logger);
  else if (job.name === JOB_NAMES.pageRuleApply) await handlers.pageRule(data as unknown as PageRuleJob, logger);
  else if (job.name === JOB_NAMES.unsilenceApply) await handlers.unsilence(data as UnsilenceJob, logger);
  else await handlers.incident(data as IncidentJob, logger);
  return null;
}

/**
 * The lane workers' side: validates job data and runs the handlers, consecutive process-alert
 * jobs of a batch together. Invalid data and INVALID_ARGUMENT / NOT_FOUND errors are
 * unrecoverable; everything else retries (logged with the request id and job id).
 */
export function createJobWorker(
  handlers: JobHandlers,
  logger: Logger,
  { turns = 0, maxJobs = JOB_BATCH }: { turns?: number; maxJobs?: number },
): BatchWorker {
  const failure = ({ job, data }: Parsed, err: unknown): JobOutcome => {
    if (AppError.is(err) && (err.code === "INVALID_ARGUMENT" || err.code === "NOT_FOUND"))
      return { ok: false, error: new UnrecoverableJobError(err.message, { cause: err }) };
    logger
      .child({ ...data.log, requestId: data.requestId, jobId: job.id, job: job.name, attempt: job.attempt })
      .warn({ err }, "job failed");
    return { ok: false, error: err };
  };
  // turns > 0 (the synchronous SQLite stores): lanes take turns, at most `turns` batches at a time,
  // with a turn of the event loop (I/O: accepts, answers) before each. Such a batch holds the event
  // loop; eight lanes running theirs back to back held it for 8 batches at a time, and accepting
  // starved. 1 on the processing thread; more with BullMQ, whose batches also wait for Redis (the
  // follow-up jobs they add, each add an fsync with AOF `always`): one batch at a time there
  // serialized those waits across the lanes. 0 (MongoDB): a batch mostly waits for the server,
  // and the lanes run side by side.
  let running = 0;
  const queued: Array<() => void> = [];
  const inTurn = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (running < turns) running++;
    else await new Promise<void>((resolve) => queued.push(resolve));
    try {
      await new Promise<void>((resolve) => setImmediate(resolve));
      return await fn();
    } finally {
      const next = queued.shift();
      if (next) next();
      else running--;
    }
  };
  return {
    maxJobs,
    batch: (jobs) => (turns > 0 ? inTurn(() => runBatch(jobs)) : runBatch(jobs)),
  };
  async function runBatch(jobs: RunningJob[]): Promise<JobOutcome[]> {
    const outcomes: JobOutcome[] = [];
    for (let i = 0; i < jobs.length; ) {
      const job = jobs[i] as RunningJob;
      const first = parse(job);
      if (!first) return [...outcomes, { ok: false, error: new UnrecoverableJobError(`invalid job ${job.name} ${job.id}`) }];
      if (job.name === JOB_NAMES.processAlert) {
        const run = [first];
        for (let next = jobs[i + run.length]; next?.name === JOB_NAMES.processAlert; next = jobs[i + run.length]) {
          const parsed = parse(next);
          if (!parsed) break;
          run.push(parsed);
        }
        const { outcomes: done, error } = await handlers
          .processAlerts(
            run.map((p) => p.data as ProcessAlertJob),
            logger,
          )
          .catch((err: unknown) => ({ outcomes: [], error: err }));
        // No result in the queue: the outcome is kept once, in the job's op record (the request
        // log, where waiters read it), not also in each end's row, message and announcement.
        for (let n = 0; n < done.length; n++) outcomes.push({ ok: true, result: null });
        const failed = run[done.length];
        if (failed) return [...outcomes, failure(failed, error)];
        i += run.length;
        continue;
      }
      try {
        outcomes.push({ ok: true, result: await runOne(handlers, first, logger) });
      } catch (err) {
        return [...outcomes, failure(first, err)];
      }
      i++;
    }
    return outcomes;
  }
}
