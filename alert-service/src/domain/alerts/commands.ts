/** The alert use-cases that change something: an alert's status, a project's alert settings. */
import { type CallContext, conflict, unavailable } from "@tocsin/core";
import { ACCESS } from "../types.js";
import type { IngestDeps } from "./ingest.js";
import { ALERT_STATUSES, type AlertSettings, type AlertStatus } from "./model.js";
import { oneOf, valueInvalid } from "./params.js";
import { alertLaneKey } from "./ports.js";
import { alertOf, getAlert } from "./queries.js";

/**
 * Sets an alert's status. Resolving sets `ended_at`, any other status clears it. Reopening while
 * another unresolved alert has the same fingerprint is ABORTED (OPEN_ALERT_EXISTS).
 */
export async function updateAlertStatus(
  deps: IngestDeps,
  projectIdOrPath: string,
  iid: number,
  statusText: string,
  ctx: CallContext,
) {
  const status = oneOf<AlertStatus>("status", statusText, ALERT_STATUSES);
  if (!status) throw valueInvalid("status");
  const alert = await alertOf(deps, projectIdOrPath, iid, ctx);
  if (alert.status === status) return getAlert(deps, projectIdOrPath, iid, ctx);
  const result = await deps.jobs.changeStatus(
    {
      requestId: ctx.requestId,
      projectId: alert.projectId,
      alertId: alert.id,
      status,
      at: deps.clock.now().toISOString(),
      laneKey: alertLaneKey(alert),
    },
    statusWaitMs(ctx),
  );
  if (!result)
    throw unavailable("ALERT_BUSY", "The alert is busy: the status change is queued and applies shortly", undefined, 1);
  if ("conflict" in result) {
    const other = alert.fingerprint ? await deps.stores.alerts.findOpen(alert.projectId, alert.fingerprint) : undefined;
    throw conflict(
      "OPEN_ALERT_EXISTS",
      `Cannot set the status to ${status}: alert #${other?.iid ?? "?"} with the same fingerprint is still open. Resolve it first.`,
    );
  }
  return getAlert(deps, projectIdOrPath, iid, ctx);
}

/** How long a status change waits for its lane: up to the caller's deadline (less a margin), at most 10 s. */
function statusWaitMs(ctx: CallContext): number {
  const budget = ctx.deadlineMs === undefined ? 10_000 : ctx.deadlineMs - Date.now() - 250;
  return Math.max(0, Math.min(10_000, budget));
}

export async function updateAlertSettings(
  deps: IngestDeps,
  projectIdOrPath: string,
  change: Partial<AlertSettings>,
  ctx: CallContext,
) {
  const project = await deps.projects.require(projectIdOrPath, ACCESS.maintainer, ctx);
  return deps.stores.incidents.updateSettings(project.id, change, deps.clock.now());
}
