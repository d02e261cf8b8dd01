import type { Logger } from "@tocsin/core";
import { DEFAULT_TITLE } from "./model.js";
import type { IncidentJob } from "./ports.js";
import type { ProcessingDeps } from "./processing.js";

/**
 * Opens the incident of a new alert (title = alert title; `New: Incident <iid>` for the default
 * title). If the alert resolved before this job ran and auto-close is on, the incident is closed
 * at once, so that "trigger then recovery" always ends with a closed incident.
 */
async function openIncident(deps: ProcessingDeps, job: IncidentJob, logger?: Logger): Promise<void> {
  const { alerts, incidents } = deps.stores;
  const alert = await alerts.getById(job.alertId);
  if (!alert) return;
  const at = deps.clock.now();
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
  logger?.debug({ incidentIid: incident.iid }, "incident opened");
  if (
    alert.status === "resolved" &&
    incident.status === "open" &&
    (await incidents.settings(alert.projectId)).autoCloseIncident
  ) {
    await incidents.close(incident.id, at);
  }
}

async function closeIncident(deps: ProcessingDeps, job: IncidentJob, logger?: Logger): Promise<void> {
  const incident = await deps.stores.incidents.getByAlert(job.alertId);
  if (incident?.status !== "open") return;
  await deps.stores.incidents.close(incident.id, deps.clock.now());
  logger?.debug({ incidentIid: incident.iid }, "incident closed");
}

/** The incident job: idempotent (one incident per alert; closing a closed incident does nothing). */
export function incidentJob(deps: ProcessingDeps, job: IncidentJob, logger?: Logger): Promise<void> {
  return job.kind === "open" ? openIncident(deps, job, logger) : closeIncident(deps, job, logger);
}
