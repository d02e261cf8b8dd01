import type { Alert } from "../../domain/alerts/model.js";
import { RESOLVED, severityOf, statusOf } from "./codes.js";

export interface AlertDoc {
  /** The alert id as a string: FerretDB 1.x pushes a bare string `_id` filter down to its backend. */
  _id: string;
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
  hosts: string[];
  events: number;
  fingerprint: string | null;
  started_at: Date;
  ended_at: Date | null;
  /** When the alert was first acknowledged; absent when never (and on alerts from before issue 26). */
  acknowledged_at?: Date;
  environment_name: string;
  incident_iid: number;
  /** JSON text: payload keys may contain `.` or `$`. */
  payload_json: string;
  create_op: string;
  /** Recent processing steps applied to the alert (trimmed), for idempotent re-runs. */
  applied_ops: string[];
  rev: number;
  open_key: string;
  /** The activity notes written with the alert (later ones are in `alert_activity`). */
  notes?: Array<{ key: string; note: string; at: Date; seq: number }>;
  created_at: Date;
  updated_at: Date;
}

export interface ActivityDoc {
  _id: string;
  alert_id: number;
  note: string;
  at: Date;
  seq: number;
}

export const KEEP_OPS = 32;
export const TRIM_AT = 64;

export const openKey = (projectId: number, fingerprint: string | null, status: number, id: number) =>
  fingerprint && status !== RESOLVED ? `${projectId}:${fingerprint}` : `closed:${id}`;

export function toAlert(d: AlertDoc): Alert {
  return {
    id: d.id,
    projectId: d.project_id,
    iid: d.iid,
    integrationId: d.integration_id,
    title: d.title,
    description: d.description,
    severity: severityOf(d.severity),
    status: statusOf(d.status),
    service: d.service,
    monitoringTool: d.monitoring_tool,
    hosts: d.hosts,
    events: d.events,
    fingerprint: d.fingerprint ?? undefined,
    startedAt: d.started_at,
    endedAt: d.ended_at ?? undefined,
    environmentName: d.environment_name,
    incidentIid: d.incident_iid,
    payload: JSON.parse(d.payload_json) as Record<string, unknown>,
    createdAt: d.created_at,
    updatedAt: d.updated_at,
  };
}
