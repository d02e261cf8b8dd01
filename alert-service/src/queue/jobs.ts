import { AppError, type Logger, unavailable, z } from "@tocsin/core";
import { autoResolveJobId } from "../domain/alerts/auto-resolve.js";
import { ALERT_STATUSES, type AlertOutcome, SEVERITIES } from "../domain/alerts/model.js";
import {
  type AlertJobs,
  type AutoResolveJob,
  type IncidentJob,
  incidentJobId,
  laneKeyOf,
  type ProcessAlertJob,
  type StatusChangeJob,
  type StatusChangeResult,
  statusChangeJobId,
  type UnsilenceJob,
  unsilenceJobId,
} from "../domain/alerts/ports.js";
import {
  type BatchWorker,
  DEFAULT_LANES,
  type JobOutcome,
  type JobQueue,
  type JobRunner,
  type RunningJob,
  UnrecoverableJobError,
} from "./queue.js";

/** Queue facts: names, job names, payload schemas, idempotency ids, lanes. */

export const QUEUE_PREFIX = "tocsin";
export const laneQueueName = (lane: number) => `alerts-lane-${lane}`;

/**
 * `auto-resolve` waits in the timer queue; when due it is moved into its alert's lane as
 * `auto-resolve-apply`, which changes the alert (every write to an alert runs in its lane).
 */
const JOB_NAMES = {
  processAlert: "process-alert",
  incident: "incident",
  autoResolve: "auto-resolve",
  autoResolveApply: "auto-resolve-apply",
  setStatus: "set-status",
  unsilence: "unsilence",
  unsilenceApply: "unsilence-apply",
} as const;

const normalizedAlertSchema = z.object({
  title: z.string(),
  description: z.string().optional(),
  service: z.string().optional(),
  monitoringTool: z.string().optional(),
  hosts: z.array(z.string()),
  severity: z.enum(SEVERITIES),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  environmentName: z.string().optional(),
  fingerprint: z.string().optional(),
  source: z.string(),
  payload: z.record(z.string(), z.unknown()),
});

const processAlertSchema = z.object({
  jobId: z.string().min(1),
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  integrationId: z.number().int().nonnegative(),
  alert: normalizedAlertSchema,
  log: z.record(z.string(), z.string()).optional(),
  autoResolveMinutes: z.number().int().positive().optional(),
});

const autoResolveSchema = z.object({
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  alertId: z.number().int().positive(),
  events: z.number().int().positive(),
  minutes: z.number().int().positive(),
  laneKey: z.string().min(1),
});

const unsilenceSchema = z.object({
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  alertId: z.number().int().positive(),
  at: z.string().min(1),
  laneKey: z.string().min(1),
});

const statusChangeSchema = z.object({
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  alertId: z.number().int().positive(),
  status: z.enum(ALERT_STATUSES),
  at: z.string().min(1),
  laneKey: z.string().min(1),
});

const incidentSchema = z.object({
  kind: z.enum(["open", "close"]),
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  alertId: z.number().int().positive(),
  laneKey: z.string().min(1),
});

/** FNV-1a of the lane key, so that one (project, fingerprint) always lands in one lane. */
export function laneOf(laneKey: string, lanes = DEFAULT_LANES): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < laneKey.length; i++) {
    h ^= laneKey.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % lanes;
}

/** The domain's AlertJobs port over a JobQueue. */
/** `timers` holds the delayed jobs (one unordered lane); the alert lanes of `queue` run in order. */
export function createAlertJobs(queue: JobQueue, timers: JobQueue, lanes = DEFAULT_LANES): AlertJobs {
  const laneOfJob = new Map<string, number>();
  return {
    async enqueueAlerts(jobs: ProcessAlertJob[]) {
      const queued = jobs.map((job) => {
        const lane = laneOf(laneKeyOf(job.projectId, job.alert.fingerprint, job.requestId), lanes);
        laneOfJob.set(job.jobId, lane);
        return { id: job.jobId, name: JOB_NAMES.processAlert, lane, data: job };
      });
      try {
        await queue.addBulk(queued);
      } catch (err) {
        for (const job of jobs) laneOfJob.delete(job.jobId);
        throw AppError.is(err) ? err : unavailable("QUEUE_UNAVAILABLE", "The alert queue is unavailable", err, 5);
      }
    },
    async enqueueIncident(job: IncidentJob) {
      await queue.add({ id: incidentJobId(job), name: JOB_NAMES.incident, lane: laneOf(job.laneKey, lanes), data: job });
    },
    async enqueueFollowUps({ incidents, autoResolves }) {
      await Promise.all([
        queue.addBulk(
          incidents.map((job) => ({
            id: incidentJobId(job),
            name: JOB_NAMES.incident,
            lane: laneOf(job.laneKey, lanes),
            data: job,
          })),
        ),
        timers.addBulk(
          autoResolves.map(({ job, delayMs }) => ({
            id: autoResolveJobId(job),
            name: JOB_NAMES.autoResolve,
            lane: 0,
            data: job,
            delayMs,
          })),
        ),
      ]);
    },
    async scheduleUnsilence(jobs: UnsilenceJob[]) {
      // Due ones (a silence expired early) go straight into their alert's lane.
      const due = jobs.filter((job) => Date.parse(job.at) <= Date.now());
      if (due.length)
        await queue.addBulk(
          due.map((job) => ({
            id: unsilenceJobId(job),
            name: JOB_NAMES.unsilenceApply,
            lane: laneOf(job.laneKey, lanes),
            data: job,
          })),
        );
      await timers.addBulk(
        jobs
          .filter((job) => !due.includes(job))
          .map((job) => ({
            id: unsilenceJobId(job),
            name: JOB_NAMES.unsilence,
            lane: 0,
            data: job,
            delayMs: Math.max(0, Date.parse(job.at) - Date.now()),
          })),
      );
    },
    async changeStatus(job: StatusChangeJob, timeoutMs: number) {
      const id = statusChangeJobId(job);
      const lane = laneOf(job.laneKey, lanes);
      await queue.add({ id, name: JOB_NAMES.setStatus, lane, data: job });
      const result = await queue.waitFor(id, lane, timeoutMs);
      if (result?.state === "failed") throw new AppError("INTERNAL", "STATUS_CHANGE_FAILED", result.error);
      return result?.state === "completed" ? (result.result as StatusChangeResult) : undefined;
    },
    async waitFor(jobId: string, timeoutMs: number) {
      const known = laneOfJob.get(jobId);
      const candidates = known === undefined ? Array.from({ length: lanes }, (_, i) => i) : [known];
      const deadline = Date.now() + timeoutMs;
      try {
        for (const lane of candidates) {
          const result = await queue.waitFor(jobId, lane, Math.max(0, deadline - Date.now()));
          if (result?.state === "completed") return result.result as Awaited<ReturnType<AlertJobs["waitFor"]>>;
          if (result?.state === "failed") return undefined;
        }
        return undefined;
      } finally {
        laneOfJob.delete(jobId);
      }
    },
    async stats() {
      return queue.counts();
    },
  };
}

export interface JobHandlers {
  /** Process-alert jobs of one lane, in order (see processAlertJobs). */
  processAlerts(jobs: ProcessAlertJob[], logger: Logger): Promise<{ outcomes: AlertOutcome[]; error?: unknown }>;
  incident(job: IncidentJob, logger: Logger): Promise<void>;
  autoResolve(job: AutoResolveJob, logger: Logger): Promise<void>;
  setStatus(job: StatusChangeJob, logger: Logger): Promise<StatusChangeResult>;
  unsilence(job: UnsilenceJob, logger: Logger): Promise<void>;
}

/** The timer queue's runner: a due auto-resolve or unsilence job moves into its alert's lane (same id, idempotent). */
export function createTimerRunner(queue: JobQueue, lanes = DEFAULT_LANES): JobRunner {
  return async (job) => {
    if (job.name === JOB_NAMES.unsilence) {
      const unsilence = unsilenceSchema.safeParse(job.data);
      if (!unsilence.success) throw new UnrecoverableJobError(`invalid job ${job.name} ${job.id}`);
      const lane = laneOf(unsilence.data.laneKey, lanes);
      await queue.add({ id: unsilenceJobId(unsilence.data), name: JOB_NAMES.unsilenceApply, lane, data: unsilence.data });
      return null;
    }
    const parsed = autoResolveSchema.safeParse(job.data);
    if (job.name !== JOB_NAMES.autoResolve || !parsed.success)
      throw new UnrecoverableJobError(`invalid job ${job.name} ${job.id}`);
    const lane = laneOf(parsed.data.laneKey, lanes);
    await queue.add({ id: autoResolveJobId(parsed.data), name: JOB_NAMES.autoResolveApply, lane, data: parsed.data });
    return null;
  };
}

/** How many due jobs of a lane one batch takes (one transaction for all of them on SQLite). */
const JOB_BATCH = 64;

/**
 * The same in the processing thread, halved: its batch transaction holds alert.db's write lock,
 * which the main thread's writes (integrations, idempotency keys, mail records) wait for
 * (≈ 5 ms at 32 new alerts; measured with the storm bench: 16 costs ≈ 15 % more CPU per alert,
 * 32 the same as 64). See docs/architecture.md, "The processing thread".
 */
export const THREAD_JOB_BATCH = 32;

const SCHEMAS: Record<string, z.ZodType> = {
  [JOB_NAMES.processAlert]: processAlertSchema,
  [JOB_NAMES.incident]: incidentSchema,
  [JOB_NAMES.autoResolveApply]: autoResolveSchema,
  [JOB_NAMES.setStatus]: statusChangeSchema,
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
  { takeTurns, maxJobs = JOB_BATCH }: { takeTurns: boolean; maxJobs?: number },
): BatchWorker {
  const failure = ({ job, data }: Parsed, err: unknown): JobOutcome => {
    if (AppError.is(err) && (err.code === "INVALID_ARGUMENT" || err.code === "NOT_FOUND"))
      return { ok: false, error: new UnrecoverableJobError(err.message, { cause: err }) };
    logger
      .child({ ...data.log, requestId: data.requestId, jobId: job.id, job: job.name, attempt: job.attempt })
      .warn({ err }, "job failed");
    return { ok: false, error: err };
  };
  // takeTurns (the synchronous SQLite stores): lanes take turns, one batch at a time, with a turn
  // of the event loop (I/O: accepts, answers) before each. Such a batch holds the event loop; eight
  // lanes running theirs back to back held it for 8 batches at a time, and accepting starved. With
  // MongoDB a batch mostly waits for the server, and the lanes run side by side.
  let turn = Promise.resolve();
  const inTurn = <T>(fn: () => Promise<T>): Promise<T> => {
    const mine = turn.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(fn);
    turn = mine.then(
      () => undefined,
      () => undefined,
    );
    return mine;
  };
  return {
    maxJobs,
    batch: (jobs) => (takeTurns ? inTurn(() => runBatch(jobs)) : runBatch(jobs)),
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
        for (const result of done) outcomes.push({ ok: true, result });
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
