import type { Logger } from "@tocsin/core";
import { type Alert, DEFAULT_TITLE } from "./model.js";
import { type IncidentJob, incidentJobId } from "./ports.js";
import type { ProcessingDeps } from "./processing.js";
import { type AlertEventKind, alertEvent, type Claim } from "./reactions.js";

/**
 * The op of an incident's close: the alert's one incident closes once (whichever job closes it, the
 * open job at once or a close job), so every path and every re-run names it the same.
 */
const incidentCloseOp = (alertId: number) => `incident-close-${alertId}`;

/** The reactions' claims of an incident event of `alert`, made by the op `op` (an incident job's id, or the close's). */
function claimIncidentEvent(
  deps: ProcessingDeps,
  kind: AlertEventKind,
  op: string,
  job: IncidentJob,
  alert: Pick<Alert, "id" | "projectId">,
  at: Date,
) {
  const event = alertEvent(kind, op, {
    projectId: alert.projectId,
    alertId: alert.id,
    requestId: job.requestId,
    at,
    by: "incident",
  });
  return deps.reactions.claim(event);
}

/**
 * Opens the incident of a new alert (title = alert title; `New: Incident <iid>` for the default
 * title) and emits `incident.opened`. If the alert resolved before this job ran and auto-close is
 * on, the incident is closed at once (and `incident.closed` emitted), so that "trigger then
 * recovery" always ends with a closed incident. Idempotent: one incident per alert and one open
 * job per alert, so a re-run finds the incident and emits the same events (same ids) again.
 */
async function openIncident(deps: ProcessingDeps, job: IncidentJob, logger?: Logger): Promise<void> {
  const { alerts, incidents } = deps.stores;
  const alert = await alerts.getById(job.alertId);
  if (!alert) return;
  const at = deps.clock.now();
  const closeAtOnce = alert.status === "resolved" && (await incidents.settings(alert.projectId)).autoCloseIncident;
  const claims = await deps.stores.batch(async () => {
    const { incident } = await incidents.openForAlert({
      projectId: alert.projectId,
      alertId: alert.id,
      alertIid: alert.iid,
      title: alert.title === DEFAULT_TITLE ? undefined : alert.title,
      severity: alert.severity,
      at,
    });
    await alerts.linkIncident(alert.id, incident.iid, at);
    await alerts.addActivity(alert.id, `incident:${incident.iid}`, `created incident #${incident.iid}`, at);
    const claims: Claim[] = await claimIncidentEvent(deps, "incident.opened", incidentJobId(job), job, alert, at);
    // The lane runs this job before any close job of the alert: a closed incident here was closed by this job.
    if (closeAtOnce) {
      if (incident.status === "open") await incidents.close(incident.id, at);
      const closedAt = incident.closedAt ?? at;
      claims.push(...(await claimIncidentEvent(deps, "incident.closed", incidentCloseOp(alert.id), job, alert, closedAt)));
    }
    logger?.debug({ incidentIid: incident.iid }, "incident opened");
    return claims;
  });
  if (claims.length) await deps.reactions.enqueue(claims);
}

/**
 * Closes the alert's open incident and emits `incident.closed`. An incident found closed already
 * (at once by the open job, or by this job before a crash between the close and its enqueue) emits
 * the same event again — the same id, at its close time — which every reactor's job key makes a
 * no-op when it was enqueued before: a close is told exactly once.
 */
async function closeIncident(deps: ProcessingDeps, job: IncidentJob, logger?: Logger): Promise<void> {
  const claims = await deps.stores.batch(async () => {
    const incident = await deps.stores.incidents.getByAlert(job.alertId);
    if (!incident) return [];
    let closedAt = incident.closedAt ?? deps.clock.now();
    if (incident.status === "open") {
      closedAt = deps.clock.now();
      await deps.stores.incidents.close(incident.id, closedAt);
      logger?.debug({ incidentIid: incident.iid }, "incident closed");
    }
    const alert = { id: job.alertId, projectId: incident.projectId };
    return claimIncidentEvent(deps, "incident.closed", incidentCloseOp(job.alertId), job, alert, closedAt);
  });
  if (claims.length) await deps.reactions.enqueue(claims);
}

/** The incident job: idempotent (one incident per alert; closing a closed incident does nothing). */
export function incidentJob(deps: ProcessingDeps, job: IncidentJob, logger?: Logger): Promise<void> {
  return job.kind === "open" ? openIncident(deps, job, logger) : closeIncident(deps, job, logger);
}
