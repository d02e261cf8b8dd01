import type { Alert } from "../../domain/alerts/model.js";
import { severityOf, statusOf } from "./codes.js";

/** An `alerts` row as the store reads it (`SELECT *`), and the alert it is. */
export interface AlertRow {
  id: number;
  project_id: number;
  iid: number;
  integration_id: number;
  title: string;
  description: string;
  severity: number;
  status: number;
  service: string;
  monitoring_tool: string;
  hosts: string;
  events: number;
  fingerprint: string | null;
  started_at: number;
  ended_at: number | null;
  environment_name: string;
  incident_iid: number;
  payload: string;
  created_at: number;
  updated_at: number;
}

export function toAlert(r: AlertRow): Alert {
  return {
    id: r.id,
    projectId: r.project_id,
    iid: r.iid,
    integrationId: r.integration_id,
    title: r.title,
    description: r.description,
    severity: severityOf(r.severity),
    status: statusOf(r.status),
    service: r.service,
    monitoringTool: r.monitoring_tool,
    hosts: JSON.parse(r.hosts) as string[],
    events: r.events,
    fingerprint: r.fingerprint ?? undefined,
    startedAt: new Date(r.started_at),
    endedAt: r.ended_at === null ? undefined : new Date(r.ended_at),
    environmentName: r.environment_name,
    incidentIid: r.incident_iid,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}
