/** The alert domain's vocabulary. Times are Date in records, ISO strings in queued data. */

export const SEVERITIES = ["critical", "high", "medium", "low", "info", "unknown"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const ALERT_STATUSES = ["triggered", "acknowledged", "resolved", "ignored"] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

export const DEFAULT_TITLE = "New: Alert";
export const DEFAULT_SOURCE = "Generic Alert Endpoint";

/** One alert as read from a payload, ready to be stored. Serialisable (queued as JSON). */
export interface NormalizedAlert {
  title: string;
  description?: string;
  service?: string;
  monitoringTool?: string;
  hosts: string[];
  severity: Severity;
  /** ISO 8601 UTC. */
  startedAt: string;
  /** ISO 8601 UTC; set for a recovery payload. */
  endedAt?: string;
  environmentName?: string;
  /** SHA-1 hex; absent when the alert cannot be grouped. */
  fingerprint?: string;
  /** `monitoring_tool`, else the integration name, else `Generic Alert Endpoint`. */
  source: string;
  /** The payload as received (for Alertmanager batches: the one alert of the batch). */
  payload: Record<string, unknown>;
}

export interface Alert {
  id: number;
  projectId: number;
  iid: number;
  integrationId: number;
  title: string;
  description: string;
  severity: Severity;
  status: AlertStatus;
  service: string;
  monitoringTool: string;
  hosts: string[];
  events: number;
  fingerprint: string | undefined;
  startedAt: Date;
  endedAt: Date | undefined;
  environmentName: string;
  /** 0 when no incident was opened. */
  incidentIid: number;
  payload: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
  /** Read side only (not in the alert record): the silences that held its last held event (issue 24). */
  silencedBy?: string[];
}

export interface ActivityEntry {
  note: string;
  createdAt: Date;
}

export type IncidentStatus = "open" | "closed";

export interface Incident {
  id: number;
  projectId: number;
  iid: number;
  title: string;
  severity: Severity;
  status: IncidentStatus;
  alertId: number;
  alertIid: number;
  createdAt: Date;
  closedAt: Date | undefined;
}

export interface AlertSettings {
  createIncident: boolean;
  autoCloseIncident: boolean;
  sendEmail: boolean;
}

export const DEFAULT_ALERT_SETTINGS: AlertSettings = { createIncident: false, autoCloseIncident: true, sendEmail: false };

/** What processing did with one alert of a payload. */
export type AlertAction = "created" | "incremented" | "resolved" | "created_resolved";

export interface AlertOutcome {
  iid: number;
  title: string;
  status: AlertStatus;
  events: number;
  action: AlertAction;
}

export function statusNote(status: AlertStatus): string {
  return `changed the status to **${status[0]?.toUpperCase()}${status.slice(1)}**`;
}
