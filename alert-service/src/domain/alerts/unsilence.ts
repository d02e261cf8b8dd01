import type { Logger } from "@tocsin/core";
import { type UnsilenceJob, unsilenceJobId } from "./ports.js";
import type { ProcessingDeps } from "./processing.js";
import { alertEvent } from "./reactions.js";

/**
 * The unsilence timer, run in the alert's lane at the end of the earliest silence that held its
 * firing event (issue 24): a still-triggered alert emits `alert.unsilenced`. The gate sees that
 * event like any other: another silence still covering the alert holds it again (and schedules
 * the next timer); otherwise the reactors notify and page now. Idempotent: the event's id is
 * derived from the job's, so a re-run claims the same mail slot and jobs.
 */
export async function unsilenceJob(deps: ProcessingDeps, job: UnsilenceJob, logger?: Logger): Promise<void> {
  const alert = await deps.stores.alerts.getById(job.alertId);
  if (alert?.status !== "triggered") return;
  const event = alertEvent("alert.unsilenced", unsilenceJobId(job), {
    projectId: alert.projectId,
    alertId: alert.id,
    requestId: job.requestId,
    at: deps.clock.now(),
    by: "unsilence",
  });
  const claims = await deps.stores.batch(() =>
    deps.reactions.claim(event, { settings: () => deps.stores.incidents.settings(alert.projectId), alert }),
  );
  if (claims.length) await deps.reactions.enqueue(claims);
  logger?.debug({ iid: alert.iid, held: claims.length === 0 }, "alert unsilenced");
}
