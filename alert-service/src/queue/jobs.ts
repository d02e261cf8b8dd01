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
import { type PagingLookups, withOncall, withPolicy } from "../domain/paging/escalation.js";
import { pageKey } from "../domain/paging/model.js";
import type { PageRuleJob, PageStartJob } from "../domain/paging/ports.js";
import {
  type BatchWorker,
  DEFAULT_LANES,
  type JobOutcome,
  type JobQueue,
  type QueuedJob,
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
  /**
   * Paging (issue 22): `page-start` and `page-rule` wait in the timer queue, whose runner makes
   * their settings-/auth-service calls (off the lanes), then apply in the alert's lane.
   */
  pageStart: "page-start",
  pageStartApply: "page-start-apply",
  pageRule: "page-rule",
  pageRuleApply: "page-rule-apply",
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
  note: z.string().optional(),
});

const incidentSchema = z.object({
  kind: z.enum(["open", "close"]),
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  alertId: z.number().int().positive(),
  laneKey: z.string().min(1),
});

const policySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  rules: z.array(
    z.object({
      status: z.enum(["acknowledged", "resolved"]),
      elapsedSeconds: z.number().int().nonnegative(),
      schedule: z.object({ iid: z.number().int().positive(), name: z.string() }).optional(),
      user: z.object({ id: z.number().int().positive(), username: z.string() }).optional(),
    }),
  ),
  repeatEverySeconds: z.number().int().positive().nullable(),
  maxRepeats: z.number().int().nonnegative(),
});

const pageUserSchema = z.object({ id: z.number().int().positive(), username: z.string() });

const pageTriggerSchema = z.object({
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  alertId: z.number().int().positive(),
  laneKey: z.string().min(1),
  triggerOp: z.string().min(1),
  triggeredAt: z.string().min(1),
});

const pageStartSchema = pageTriggerSchema.extend({ policy: policySchema.nullable().optional() });

const pageRuleSchema = pageTriggerSchema.extend({
  rule: z.number().int().nonnegative(),
  round: z.number().int().nonnegative(),
  policy: policySchema,
  oncall: z.object({ users: z.array(pageUserSchema), skipped: z.array(pageUserSchema) }).optional(),
});

/** Paging's job ids: one start per (alert, trigger); a rule job's id is its page key (`page:<alert>:<trigger>:<rule>:<round>`). */
const pageStartJobId = (job: Pick<PageStartJob, "alertId" | "triggerOp">) => `page-start:${job.alertId}:${job.triggerOp}`;
const pageRuleJobId = (job: PageRuleJob) => pageKey(job.alertId, job.triggerOp, job.rule, job.round);

/** Paging's lane and timer jobs (the PagingJobs port without its mail job, see createPagingJobs). */
export function createPagingQueueJobs(timers: JobQueue) {
  return {
    async enqueueStarts(jobs: PageStartJob[]) {
      await timers.addBulk(jobs.map((job) => ({ id: pageStartJobId(job), name: JOB_NAMES.pageStart, lane: 0, data: job })));
    },
    async enqueueRules(jobs: Array<{ job: PageRuleJob; delayMs: number }>) {
      await timers.addBulk(
        jobs.map(({ job, delayMs }) => ({ id: pageRuleJobId(job), name: JOB_NAMES.pageRule, lane: 0, data: job, delayMs })),
      );
    },
  };
}

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
  const laneOfAlert = (job: ProcessAlertJob) => laneOf(laneKeyOf(job.projectId, job.alert.fingerprint, job.requestId), lanes);
  return {
    async enqueueAlerts(jobs: ProcessAlertJob[]) {
      const queued = jobs.map((job) => ({ id: job.jobId, name: JOB_NAMES.processAlert, lane: laneOfAlert(job), data: job }));
      try {
        await queue.addBulk(queued);
      } catch (err) {
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
    async waitFor(job: ProcessAlertJob, timeoutMs: number) {
      // The lane is derived from the job (never remembered per accepted job: that map grew by one
      // entry per 202 until a waiter asked, which almost none do; issue 27's soak found it).
      const result = await queue.waitFor(job.jobId, laneOfAlert(job), timeoutMs);
      return result?.state === "completed" ? (result.result as Awaited<ReturnType<AlertJobs["waitFor"]>>) : undefined;
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
  pageStart(job: PageStartJob, logger: Logger): Promise<void>;
  pageRule(job: PageRuleJob, logger: Logger): Promise<void>;
  unsilence(job: UnsilenceJob, logger: Logger): Promise<void>;
}

/** Due timer jobs one batch takes: their service calls run side by side, their lane jobs are added at once. */
const TIMER_BATCH = 64;

/**
 * The timer queue's runner: a due auto-resolve, unsilence, page-start or page-rule job moves into its
 * alert's lane (same id, idempotent), where it changes the alert. Paging's settings- and
 * auth-service calls are made here, before the move, side by side for a batch: a lane job that
 * waited on them would hold its lane (and, with the SQLite stores, every lane's turn). Without
 * `lookups` (no paging), a page-start finds no policy and a rule pages nobody.
 */
export function createTimerRunner(queue: JobQueue, lookups?: PagingLookups, lanes = DEFAULT_LANES): BatchWorker {
  const toLaneJob = async (job: RunningJob): Promise<QueuedJob | undefined> => {
    const invalid = () => new UnrecoverableJobError(`invalid job ${job.name} ${job.id}`);
    if (job.name === JOB_NAMES.unsilence) {
      const unsilence = unsilenceSchema.safeParse(job.data);
      if (!unsilence.success) throw invalid();
      const lane = laneOf(unsilence.data.laneKey, lanes);
      return { id: unsilenceJobId(unsilence.data), name: JOB_NAMES.unsilenceApply, lane, data: unsilence.data };
    }
    if (job.name === JOB_NAMES.pageRule) {
      const rule = pageRuleSchema.safeParse(job.data);
      if (!rule.success) throw invalid();
      const data = lookups ? await withOncall(lookups, rule.data, new Date()) : rule.data;
      return { id: pageRuleJobId(rule.data), name: JOB_NAMES.pageRuleApply, lane: laneOf(rule.data.laneKey, lanes), data };
    }
    if (job.name === JOB_NAMES.pageStart) {
      const start = pageStartSchema.safeParse(job.data);
      if (!start.success) throw invalid();
      const data = lookups ? await withPolicy(lookups, start.data) : undefined;
      if (!data) return undefined; // no policy and nothing to stop
      return { id: pageStartJobId(start.data), name: JOB_NAMES.pageStartApply, lane: laneOf(start.data.laneKey, lanes), data };
    }
    const parsed = autoResolveSchema.safeParse(job.data);
    if (job.name !== JOB_NAMES.autoResolve || !parsed.success) throw invalid();
    const lane = laneOf(parsed.data.laneKey, lanes);
    return { id: autoResolveJobId(parsed.data), name: JOB_NAMES.autoResolveApply, lane, data: parsed.data };
  };
  return {
    maxJobs: TIMER_BATCH,
    async batch(jobs) {
      const settled = await Promise.allSettled(jobs.map(toLaneJob));
      const failed = settled.findIndex((s) => s.status === "rejected");
      const done = (failed < 0 ? settled : settled.slice(0, failed)) as Array<PromiseFulfilledResult<QueuedJob | undefined>>;
      await queue.addBulk(done.flatMap((s) => (s.value ? [s.value] : [])));
      const outcomes: JobOutcome[] = done.map(() => ({ ok: true, result: null }));
      const failure = settled[failed];
      if (failure?.status === "rejected") outcomes.push({ ok: false, error: failure.reason });
      return outcomes;
    },
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
