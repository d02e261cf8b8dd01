import type { ServiceHandlers } from "@tocsin/grpc";
import type { alertV1 } from "@tocsin/proto";
import type { Tracing } from "@tocsin/telemetry";
import type { ActivityEntry, Alert, AlertSettings, Incident } from "../domain/alerts/model.js";
import type { DryRun } from "../domain/alerts/test-alert.js";
import type { AlertsUseCases } from "../domain/alerts/use-cases.js";
import type { EscalationView } from "../domain/paging/model.js";
import { ingestStreamHandler, toIngestRequest, toIngestResponse } from "./ingest-stream.js";
import { overviewHandlers } from "./overview.js";

type Def = typeof alertV1.AlertServiceService;
const NAMES = [
  "ingestAlert",
  "ingestAlerts",
  "sendTestAlert",
  "getIngestStats",
  "listAlerts",
  "getAlert",
  "updateAlertStatus",
  "acknowledgeAlertFromPage",
  "listIncidents",
  "getIncident",
  "getAlertSettings",
  "updateAlertSettings",
  "getAlertOverview",
  "listOpenAlertCounts",
] as const;
export type AlertHandlers = Pick<ServiceHandlers<Def>, (typeof NAMES)[number]>;

function toEscalationMessage(e: EscalationView): alertV1.Escalation {
  return {
    policy: e.policy,
    nextPageAt: e.nextPageAt ?? undefined,
    pages: e.pages.map((p) => ({ users: p.users, rule: p.rule, round: p.round, at: p.at })),
  };
}

/** Alert message; `details` adds the stored payload, the activity and the escalation (details only). */
function toAlertMessage(a: Alert, details?: { activity: ActivityEntry[]; escalation?: EscalationView | null }): alertV1.Alert {
  return {
    iid: a.iid,
    title: a.title,
    description: a.description,
    severity: a.severity,
    status: a.status,
    service: a.service,
    monitoringTool: a.monitoringTool,
    hosts: a.hosts,
    events: a.events,
    fingerprint: a.fingerprint ?? "",
    startedAt: a.startedAt,
    endedAt: a.endedAt,
    environmentName: a.environmentName,
    incidentIid: a.incidentIid,
    integrationId: a.integrationId,
    projectId: a.projectId,
    payloadJson: details ? JSON.stringify(a.payload) : "",
    activity: details ? details.activity.map((e) => ({ note: e.note, createdAt: e.createdAt })) : [],
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
    escalation: details?.escalation ? toEscalationMessage(details.escalation) : undefined,
    silencedBy: a.silencedBy ?? [],
  };
}

function toIncidentMessage(i: Incident): alertV1.Incident {
  return {
    iid: i.iid,
    title: i.title,
    severity: i.severity,
    status: i.status,
    alertIid: i.alertIid,
    createdAt: i.createdAt,
    closedAt: i.closedAt,
  };
}

const toSettings = (s: AlertSettings): alertV1.AlertSettings => ({ ...s });

function toDryRun(d: DryRun): alertV1.DryRunResult {
  return {
    normalizedAlertJson: JSON.stringify(d.normalizedAlert),
    fingerprint: d.fingerprint,
    action: d.action,
    existingAlertIid: d.existingAlertIid,
    wouldCreateIncident: d.wouldCreateIncident,
    wouldCloseIncident: d.wouldCloseIncident,
  };
}

/** Thin gRPC handlers over the alert use-cases. */
export function alertHandlers(useCases: AlertsUseCases, tracing?: Tracing): AlertHandlers {
  return {
    ...overviewHandlers(useCases),
    ingestAlerts: ingestStreamHandler(useCases, tracing),
    async ingestAlert(req, ctx) {
      return toIngestResponse(await useCases.ingest(toIngestRequest(req), ctx));
    },
    async sendTestAlert(req, ctx) {
      const r = await useCases.sendTestAlert(
        {
          projectIdOrPath: req.projectIdOrPath,
          integrationId: req.integrationId,
          payloadJson: req.payloadJson,
          dryRun: req.dryRun,
        },
        ctx,
      );
      return { message: r.message, alert: r.alert && toAlertMessage(r.alert, r.alert), dryRun: r.dryRun && toDryRun(r.dryRun) };
    },
    async getIngestStats() {
      return useCases.stats();
    },
    async listAlerts(req, ctx) {
      const r = await useCases.listAlerts(req, ctx);
      return { alerts: r.alerts.map((a) => toAlertMessage(a)), total: r.total, opsgenieUrl: r.opsgenieUrl ?? "" };
    },
    async getAlert(req, ctx) {
      const a = await useCases.getAlert(req.projectIdOrPath, req.alertIid, ctx);
      return { alert: toAlertMessage(a, a) };
    },
    async updateAlertStatus(req, ctx) {
      const a = await useCases.updateAlertStatus(req.projectIdOrPath, req.alertIid, req.status, ctx);
      return { alert: toAlertMessage(a, a) };
    },
    async acknowledgeAlertFromPage(req, ctx) {
      return useCases.acknowledgeFromPage(req.token, ctx);
    },
    async listIncidents(req, ctx) {
      const r = await useCases.listIncidents(req, ctx);
      return { incidents: r.incidents.map(toIncidentMessage), total: r.total };
    },
    async getIncident(req, ctx) {
      return { incident: toIncidentMessage(await useCases.getIncident(req.projectIdOrPath, req.incidentIid, ctx)) };
    },
    async getAlertSettings(req, ctx) {
      return { settings: toSettings(await useCases.getAlertSettings(req.projectIdOrPath, ctx)) };
    },
    async updateAlertSettings(req, ctx) {
      const { projectIdOrPath, ...change } = req;
      return { settings: toSettings(await useCases.updateAlertSettings(projectIdOrPath, change, ctx)) };
    },
  };
}
