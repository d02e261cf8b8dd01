import type { Logger } from "@tocsin/core";
import { statusNote } from "./model.js";
import type { AutoResolveJob } from "./ports.js";
import type { ProcessingDeps } from "./processing.js";

/** The job's id: one per (alert, event count), so a new event schedules a new one and the old one finds a changed count. */
export const autoResolveJobId = (job: Pick<AutoResolveJob, "alertId" | "events">) => `auto-resolve-${job.alertId}-${job.events}`;

const autoResolveNote = (minutes: number) =>
  `automatically resolved after ${minutes} minute${minutes === 1 ? "" : "s"} without new events`;

/**
 * The delayed auto-resolve job (PRODUCT.md section 10): resolves the alert when it is still
 * triggered and has had no new event since the job was scheduled; closes its incident when
 * `auto_close_incident` is on. Idempotent: the resolve is keyed by the job id, and so are its notes.
 */
export async function autoResolveJob(deps: ProcessingDeps, job: AutoResolveJob, logger?: Logger): Promise<void> {
  const { alerts } = deps.stores;
  const op = autoResolveJobId(job);
  const alert = await alerts.getById(job.alertId);
  if (!alert) return;
  const now = deps.clock.now();
  const resolved =
    alert.status === "triggered" && alert.events === job.events ? await alerts.resolve(alert.id, now, op, now) : undefined;
  const prior = resolved ? undefined : await alerts.findByOp(alert.projectId, op);
  if (!resolved && !prior) return; // a new event, a user's change, or a recovery came first
  await alerts.addActivity(alert.id, `${op}:auto`, autoResolveNote(job.minutes), now);
  await alerts.addActivity(alert.id, `${op}:status`, statusNote("resolved"), now);
  if ((await deps.stores.incidents.settings(alert.projectId)).autoCloseIncident) {
    await deps.jobs.enqueueIncident({
      kind: "close",
      requestId: op,
      projectId: alert.projectId,
      alertId: alert.id,
      laneKey: job.laneKey,
    });
  }
  logger?.debug({ iid: alert.iid, minutes: job.minutes }, "alert automatically resolved");
}
