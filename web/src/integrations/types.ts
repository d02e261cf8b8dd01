export type IntegrationType = "http" | "prometheus" | "opsgenie";

export interface IntegrationSummary {
  id: number;
  name: string;
  type: IntegrationType;
  active: boolean;
}

export interface Integration extends IntegrationSummary {
  url: string | null;
  token: string | null;
  endpoint_identifier: string | null;
  api_url?: string | null;
  /** Protection (PRODUCT.md section 10), http and prometheus: the budget in force (0 = unlimited). */
  rate_limit_per_minute?: number;
  /** Minutes without a new event after which a triggered alert is resolved; null = off. */
  auto_resolve_minutes?: number | null;
  token_last_used_at?: string | null;
  /** While the key before the last reset still works (its grace period). */
  previous_token_expires_at?: string | null;
  /** http only: a signing secret is set (posts must be signed). */
  signing_enabled?: boolean;
  created_at: string;
  updated_at: string;
}

export interface AlertSettings {
  create_incident: boolean;
  auto_close_incident: boolean;
  send_email: boolean;
}

export interface DryRun {
  alert: Record<string, unknown> | null;
  fingerprint: string | null;
  action: "create" | "increment" | "resolve" | "create_resolved" | string;
  existing_alert_iid: number | null;
  would_create_incident: boolean;
  would_close_incident: boolean;
}

export interface TestAlertAnswer {
  message: string;
  alert?: { iid: number; title: string; events: number; status: string } | null;
  dry_run?: DryRun;
}

export const TYPE_LABELS: Record<IntegrationType, string> = {
  http: "HTTP Endpoint",
  prometheus: "Prometheus",
  opsgenie: "Opsgenie",
};

/** The sample of the Send test alert tab: every field the normaliser reads, and a custom one. */
export const SAMPLE_PAYLOAD = {
  title: "Test alert from the Tocsin console",
  description: "Checking that this integration receives alerts",
  start_time: "2026-01-01T00:00:00Z",
  severity: "high",
  service: "checkout",
  monitoring_tool: "console",
  hosts: ["web-1"],
  fingerprint: "console-test",
  custom: { region: "eu-west", runbook: "https://example.com/runbook" },
};
