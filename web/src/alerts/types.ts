export const SEVERITIES = ["critical", "high", "medium", "low", "info", "unknown"] as const;
export const STATUSES = ["triggered", "acknowledged", "resolved", "ignored"] as const;
export type Severity = (typeof SEVERITIES)[number];
export type AlertStatus = (typeof STATUSES)[number];

export interface Alert {
  iid: number;
  title: string;
  description: string | null;
  severity: Severity;
  status: AlertStatus;
  service: string | null;
  monitoring_tool: string | null;
  hosts: string[];
  events: number;
  fingerprint: string | null;
  started_at: string | null;
  ended_at: string | null;
  environment: string | null;
  incident: { iid: number } | null;
  created_at: string;
  updated_at: string;
  /** The ids of the silences that cover the alert now (PRODUCT.md section 13); empty when none. */
  silenced_by: string[];
}

/** An alert's escalation (PRODUCT.md section 11): the pages of its latest trigger and the next one due. */
export interface Escalation {
  policy: string;
  next_page_at: string | null;
  pages: { users: string[]; rule: number; round: number; at: string }[];
}

export interface AlertDetails extends Alert {
  payload: unknown;
  activity: { note: string; created_at: string }[];
  /** null when no escalation policy applied to the alert's latest trigger. */
  escalation: Escalation | null;
}

/** The list's tabs: Open is triggered and acknowledged together, as in GitLab. */
export const TABS = ["open", "triggered", "acknowledged", "resolved", "all"] as const;
export type AlertTab = (typeof TABS)[number];

export const SORT_FIELDS = ["started_at", "severity", "status", "events"] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export type SortDir = "asc" | "desc";

/** What narrows the list besides its tab; each is an address parameter and an API parameter. */
export interface ListFilters {
  search: string;
  severity: Severity | "";
  /** Exact service / monitoring tool (any case). */
  service: string;
  monitoringTool: string;
}

export interface ListParams extends ListFilters {
  tab: AlertTab;
  orderBy: SortField;
  sort: SortDir;
  page: number;
  perPage: number;
}
