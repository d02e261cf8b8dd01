import type { Logger } from "@tocsin/core";
import { statusNote } from "./model.js";
import type { AutoResolveJob } from "./ports.js";
import type { ProcessingDeps } from "./processing.js";
import { alertEvent, type Claim } from "./reactions.js";

/** The job's id: one per (alert, event count), so a new event schedules a new one and the old one finds a changed count. */
export const autoResolveJobId = (job: Pick<AutoResolveJob, "alertId" | "events">) => `auto-resolve-${job.alertId}-${job.events}`;

const autoResolveNote = (minutes: number) =>
  `automatically resolved after ${minutes} minute${minutes === 1 ? "" : "s"} without new events`;

/**
 * The delayed auto-resolve job (PRODUCT.md section 10): resolves the alert when it is still
 * triggered and has had no new event since the job was scheduled, and emits `alert.resolved`;
 * closes its incident when `auto_close_incident` is on. The resolve, its notes and the reactions'
 * claims are one write; the incident job and the claims' jobs are enqueued after it.
 * Idempotent: the resolve is keyed by the job id (a re-run finds it and emits the same event),
 * and so are its notes.
 */
export async function autoResolveJob(deps: ProcessingDeps, job: AutoResolveJob, logger?: Logger): Promise<void> {
  const { alerts } = deps.stores;
  const op = autoResolveJobId(job);
  const alert = await alerts.getById(job.alertId);
  if (!alert) return;
  const now = deps.clock.now();
  const claims = await deps.stores.batch(async (): Promise<Claim[] | undefined> => {
    const resolved =
      alert.status === "triggered" && alert.events === job.events ? await alerts.resolve(alert.id, now, op, now) : undefined;
    const prior = resolved ? undefined : await alerts.findByOp(alert.projectId, op);
    if (!resolved && !prior) return undefined; // a new event, a user's change, or a recovery came first
    await alerts.addActivity(alert.id, `${op}:auto`, autoResolveNote(job.minutes), now);
    await alerts.addActivity(alert.id, `${op}:status`, statusNote("resolved"), now);
    const event = alertEvent("alert.resolved", op, {
      projectId: alert.projectId,
      alertId: alert.id,
      requestId: job.requestId,
      at: now,
      by: "auto-resolve",
    });
    return deps.reactions.claim(event);
  });
  if (!claims) return;
  if ((await deps.stores.incidents.settings(alert.projectId)).autoCloseIncident) {
    await deps.jobs.enqueueIncident({
      kind: "close",
      requestId: op,
      projectId: alert.projectId,
      alertId: alert.id,
      laneKey: job.laneKey,
    });
  }
  if (claims.length) await deps.reactions.enqueue(claims);
  logger?.debug({ iid: alert.iid, minutes: job.minutes }, "alert automatically resolved");
}
