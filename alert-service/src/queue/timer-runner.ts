import { autoResolveJobId } from "../domain/alerts/auto-resolve.js";
import { unsilenceJobId } from "../domain/alerts/ports.js";
import { type PagingLookups, withOncall, withPolicy } from "../domain/paging/escalation.js";
import type { OncallDirectory } from "../domain/paging/ports.js";
import {
  autoResolveSchema,
  JOB_NAMES,
  laneOf,
  pageRuleJobId,
  pageRuleSchema,
  pageStartJobId,
  pageStartSchema,
  unsilenceSchema,
} from "./job-facts.js";
import {
  type BatchWorker,
  DEFAULT_LANES,
  type JobOutcome,
  type JobQueue,
  type QueuedJob,
  type RunningJob,
  UnrecoverableJobError,
} from "./queue.js";

/** Due timer jobs one batch takes: their service calls run side by side, their lane jobs are added at once. */
const TIMER_BATCH = 64;

/**
 * The timer queue's runner: a due auto-resolve, unsilence, page-start or page-rule job moves into its
 * alert's lane (same id, idempotent), where it changes the alert. Paging's settings- and
 * auth-service calls are made here, before the move, side by side for a batch: a lane job that
 * waited on them would hold its lane (and, with the SQLite stores, every lane's turn). Without
 * `lookups` (no paging), a page-start moves nothing and a rule pages nobody.
 */
export function createTimerRunner(queue: JobQueue, lookups?: PagingLookups, lanes = DEFAULT_LANES): BatchWorker {
  const toLaneJob = async (job: RunningJob, lookups: PagingLookups | undefined): Promise<QueuedJob | undefined> => {
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
      const once = lookups && policyOncePerProject(lookups);
      const settled = await Promise.allSettled(jobs.map((job) => toLaneJob(job, once)));
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

/**
 * The lookups of one batch, each project's escalation policy read once (a storm's page-starts are
 * mostly of one project: one settings-service call per batch, not per alert). A failed read fails
 * every job that waited on it, as separate reads would have.
 */
function policyOncePerProject(lookups: PagingLookups): PagingLookups {
  const policies = new Map<number, ReturnType<OncallDirectory["policy"]>>();
  const read = lookups.directory;
  const directory: OncallDirectory = {
    policy(projectId, ctx) {
      let policy = policies.get(projectId);
      if (!policy) {
        policy = read.policy(projectId, ctx);
        policies.set(projectId, policy);
      }
      return policy;
    },
    oncall: (projectId, scheduleIid, at, ctx) => read.oncall(projectId, scheduleIid, at, ctx),
  };
  return { ...lookups, directory };
}
