import type { alertV1 } from "@tocsin/proto";
import { isoTime } from "./time.js";

/** "" → null, for optional text the services send as empty strings. */
const orNull = (value: string) => (value === "" ? null : value);

/** JSON text from a service → value; text that does not parse stays text (never a 500). */
function parseJson(text: string, fallback: unknown): unknown {
  if (!text) return fallback;
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

/**
 * An integration: `{id, name, type, active, url, token, endpoint_identifier, payload_example,
 * payload_attribute_mappings, created_at, updated_at}`, plus `api_url` for prometheus and opsgenie
 * and `rate_limit_per_minute` (the budget in force, 0 = unlimited) for http and prometheus.
 */
export function toIntegrationJson(i: alertV1.Integration) {
  const json: Record<string, unknown> = {
    id: i.id,
    name: i.name,
    type: i.type,
    active: i.active,
    url: orNull(i.url),
    token: orNull(i.token),
    endpoint_identifier: orNull(i.endpointIdentifier),
    payload_example: parseJson(i.payloadExampleJson, {}),
    payload_attribute_mappings: parseJson(i.payloadAttributeMappingsJson, {}),
    created_at: isoTime(i.createdAt),
    updated_at: isoTime(i.updatedAt),
  };
  if (i.type !== "http") json.api_url = orNull(i.apiUrl);
  if (i.type !== "opsgenie") {
    json.rate_limit_per_minute = i.rateLimitPerMinute;
    json.token_last_used_at = isoTime(i.tokenLastUsedAt);
    json.previous_token_expires_at = isoTime(i.previousTokenExpiresAt);
    json.auto_resolve_minutes = i.autoResolveMinutes ?? null;
  }
  if (i.type === "http") json.signing_enabled = i.signingEnabled;
  return json;
}

export function toIntegrationSummaryJson(i: alertV1.IntegrationSummary) {
  const json: Record<string, unknown> = { id: i.id, name: i.name, type: i.type, active: i.active };
  if (i.rateLimitPerMinute !== undefined) json.rate_limit_per_minute = i.rateLimitPerMinute;
  return json;
}

export function toPayloadFieldJson(f: alertV1.PayloadField) {
  return { path: parseJson(f.pathJson, []), label: f.label, type: f.type };
}

export function toAlertSettingsJson(s: alertV1.AlertSettings) {
  return { create_incident: s.createIncident, auto_close_incident: s.autoCloseIncident, send_email: s.sendEmail };
}

/** An alert's escalation (section 11): its policy, the next page due and the pages sent. */
function toEscalationJson(e: alertV1.Escalation) {
  return {
    policy: e.policy,
    next_page_at: isoTime(e.nextPageAt),
    pages: e.pages.map((p) => ({ users: p.users, rule: p.rule, round: p.round, at: isoTime(p.at) })),
  };
}

/** An alert as listed; `details` adds the stored `payload`, the `activity` list and the `escalation`. */
export function toAlertJson(a: alertV1.Alert, details = false) {
  const json: Record<string, unknown> = {
    iid: a.iid,
    title: a.title,
    description: orNull(a.description),
    severity: a.severity,
    status: a.status,
    service: orNull(a.service),
    monitoring_tool: orNull(a.monitoringTool),
    hosts: a.hosts,
    events: a.events,
    fingerprint: orNull(a.fingerprint),
    started_at: isoTime(a.startedAt),
    ended_at: isoTime(a.endedAt),
    environment: orNull(a.environmentName),
    incident: a.incidentIid ? { iid: a.incidentIid } : null,
    created_at: isoTime(a.createdAt),
    updated_at: isoTime(a.updatedAt),
    silenced_by: a.silencedBy,
  };
  if (details) {
    json.payload = parseJson(a.payloadJson, {});
    json.activity = a.activity.map((e) => ({ note: e.note, created_at: isoTime(e.createdAt) }));
    json.escalation = a.escalation ? toEscalationJson(a.escalation) : null;
  }
  return json;
}

export function toIncidentJson(i: alertV1.Incident) {
  return {
    iid: i.iid,
    title: i.title,
    severity: i.severity,
    status: i.status,
    alert_iid: i.alertIid || null,
    created_at: isoTime(i.createdAt),
    closed_at: isoTime(i.closedAt),
  };
}

/** What a dry-run test alert would do, without doing it. */
export function toDryRunJson(d: alertV1.DryRunResult) {
  return {
    alert: parseJson(d.normalizedAlertJson, null),
    fingerprint: orNull(d.fingerprint),
    action: d.action,
    existing_alert_iid: d.existingAlertIid || null,
    would_create_incident: d.wouldCreateIncident,
    would_close_incident: d.wouldCloseIncident,
  };
}
