import { AppError, type CallContext, conflict, notFound, pageOffset, toPage, unavailable } from "@tocsin/core";
import { type EscalationView, escalationView } from "../paging/model.js";
import { ACCESS } from "../types.js";
import type { IngestDeps } from "./ingest.js";
import { listOfStatuses, parseStatuses } from "./list-statuses.js";
import {
  type ActivityEntry,
  ALERT_STATUSES,
  type Alert,
  type AlertSettings,
  type AlertStatus,
  type Incident,
  type IncidentStatus,
  SEVERITIES,
} from "./model.js";
import { ALERT_ORDER_FIELDS, type AlertOrderField, alertLaneKey } from "./ports.js";

const valueInvalid = (param: string) =>
  new AppError("INVALID_ARGUMENT", "PARAM_VALUE_INVALID", `${param} does not have a valid value`);

function oneOf<T extends string>(param: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (!value) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw valueInvalid(param);
  return value as T;
}

/** Alerts with their recorded `silenced_by` (`[]` when none). */
async function withSilencedBy(deps: IngestDeps, alerts: Alert[]): Promise<Alert[]> {
  if (!deps.silencedBy || alerts.length === 0) return alerts;
  const found = await deps.silencedBy(alerts.map((a) => a.id));
  return alerts.map((a) => ({ ...a, silencedBy: found.get(a.id) ?? [] }));
}

export interface ListAlertsRequest {
  projectIdOrPath: string;
  status?: string;
  search?: string;
  severity?: string;
  monitoringTool?: string;
  service?: string;
  orderBy?: string;
  sort?: string;
  page?: number;
  perPage?: number;
}

export async function listAlerts(deps: IngestDeps, req: ListAlertsRequest, ctx: CallContext) {
  const project = await deps.projects.require(req.projectIdOrPath, ACCESS.developer, ctx);
  const statuses = parseStatuses(req.status);
  const orderBy = oneOf<AlertOrderField>("order_by", req.orderBy, ALERT_ORDER_FIELDS) ?? "created_at";
  const sort = oneOf("sort", req.sort, ["asc", "desc"] as const) ?? "desc";
  const page = toPage(req.page, req.perPage);
  const search = req.search?.trim() || undefined;
  const filters = {
    severity: oneOf("severity", req.severity, SEVERITIES),
    monitoringTool: req.monitoringTool?.trim() || undefined,
    service: req.service?.trim() || undefined,
  };
  const q = { search, ...filters, orderBy, sort, offset: pageOffset(page), limit: page.perPage };
  const [{ alerts, total }, opsgenieUrl] = await Promise.all([
    statuses.length > 1
      ? listOfStatuses(deps.stores.alerts, project.id, statuses, q)
      : deps.stores.alerts.list(project.id, { ...q, status: statuses[0] }),
    deps.integrations.opsgenieUrl(project.id),
  ]);
  return { alerts: await withSilencedBy(deps, alerts), total, opsgenieUrl };
}

async function alertOf(deps: IngestDeps, projectIdOrPath: string, iid: number, ctx: CallContext) {
  const project = await deps.projects.require(projectIdOrPath, ACCESS.developer, ctx);
  const alert = await deps.stores.alerts.get(project.id, iid);
  if (!alert) throw notFound("Alert");
  return alert;
}

export async function getAlert(deps: IngestDeps, projectIdOrPath: string, iid: number, ctx: CallContext): Promise<AlertDetails> {
  const alert = await alertOf(deps, projectIdOrPath, iid, ctx);
  const [withSilences] = await withSilencedBy(deps, [alert]);
  return {
    ...(withSilences ?? alert),
    activity: await deps.stores.alerts.activity(alert.id),
    escalation: await escalationOf(deps, alert),
  };
}

/** An alert with its activity and its escalation (null when no policy applied to its latest trigger). */
export type AlertDetails = Alert & { activity: ActivityEntry[]; escalation: EscalationView | null };

async function escalationOf(deps: IngestDeps, alert: Alert): Promise<EscalationView | null> {
  const paging = deps.paging;
  const escalation = paging && (await paging.escalations.get(alert.id));
  if (!paging || !escalation) return null;
  return escalationView(escalation, await paging.escalations.steps(alert.id), alert.status, paging.secondMs);
}

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

export interface ListIncidentsRequest {
  projectIdOrPath: string;
  status?: string;
  page?: number;
  perPage?: number;
}

export async function listIncidents(deps: IngestDeps, req: ListIncidentsRequest, ctx: CallContext) {
  const project = await deps.projects.require(req.projectIdOrPath, ACCESS.developer, ctx);
  const status = oneOf<IncidentStatus>("status", req.status, ["open", "closed"]);
  const page = toPage(req.page, req.perPage);
  return deps.stores.incidents.list(project.id, status, pageOffset(page), page.perPage);
}

export async function getIncident(deps: IngestDeps, projectIdOrPath: string, iid: number, ctx: CallContext): Promise<Incident> {
  const project = await deps.projects.require(projectIdOrPath, ACCESS.developer, ctx);
  const incident = await deps.stores.incidents.get(project.id, iid);
  if (!incident) throw notFound("Incident");
  return incident;
}

export async function getAlertSettings(deps: IngestDeps, projectIdOrPath: string, ctx: CallContext): Promise<AlertSettings> {
  const project = await deps.projects.require(projectIdOrPath, ACCESS.maintainer, ctx);
  return deps.stores.incidents.settings(project.id);
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
