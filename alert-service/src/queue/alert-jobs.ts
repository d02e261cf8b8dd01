import { AppError, unavailable } from "@tocsin/core";
import { autoResolveJobId } from "../domain/alerts/auto-resolve.js";
import {
  type AlertJobs,
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
import type { PageRuleJob, PageStartJob } from "../domain/paging/ports.js";
import { JOB_NAMES, laneOf, pageRuleJobId, pageStartJobId } from "./job-facts.js";
import { DEFAULT_LANES, type JobQueue } from "./queue.js";

/** The producers' side: the domain's AlertJobs and paging ports over the lanes and the timer queue. */

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
    async waitFor(job: ProcessAlertJob, timeoutMs: number, signal?: AbortSignal) {
      // The lane is derived from the job (never remembered per accepted job: that map grew by one
      // entry per 202 until a waiter asked, which almost none do; issue 27's soak found it).
      return (await queue.waitFor(job.jobId, laneOfAlert(job), timeoutMs, signal))?.state === "completed";
    },
    async stats() {
      return queue.counts();
    },
  };
}
