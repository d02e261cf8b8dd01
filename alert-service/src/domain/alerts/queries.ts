/** The alert use-cases that read: alerts, incidents and alert settings of a project. */
import { type CallContext, notFound, pageOffset, toPage } from "@tocsin/core";
import { type EscalationView, escalationView } from "../paging/model.js";
import { ACCESS } from "../types.js";
import type { IngestDeps } from "./ingest.js";
import { listOfStatuses, parseStatuses } from "./list-statuses.js";
import { type ActivityEntry, type Alert, type AlertSettings, type Incident, type IncidentStatus, SEVERITIES } from "./model.js";
import { oneOf } from "./params.js";
import { ALERT_ORDER_FIELDS, type AlertOrderField } from "./ports.js";

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
      ? listOfStatuses(deps.stores.alerts, project.id, statuses, q, ctx.deadlineMs)
      : deps.stores.alerts.list(project.id, { ...q, status: statuses[0] }, ctx.deadlineMs),
    deps.integrations.opsgenieUrl(project.id),
  ]);
  return { alerts: await withSilencedBy(deps, alerts), total, opsgenieUrl };
}

/** The alert `iid` of a project the caller may read (NOT_FOUND otherwise). */
export async function alertOf(deps: IngestDeps, projectIdOrPath: string, iid: number, ctx: CallContext) {
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
