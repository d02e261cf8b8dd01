import type { channelsV1 } from "@tocsin/proto";
import { isoTime } from "./time.js";

const TITLES: Record<string, string> = {
  slack: "Slack notifications",
  mattermost: "Mattermost notifications",
  "microsoft-teams": "Microsoft Teams notifications",
};

/**
 * A chat integration, GitLab's Integrations API shape: `{id, title, slug, active, alert_events,
 * incident_events (also as incidents_events, the name it is set by), alert_status, created_at,
 * updated_at, properties {webhook (masked), username, channel, alert_channel, incident_channel}}`.
 */
export function toChatIntegrationJson(i: channelsV1.ChatIntegration) {
  return {
    id: i.id,
    title: TITLES[i.name] ?? i.name,
    slug: i.name,
    active: i.alertStatus !== "disabled",
    alert_events: i.alertEvents,
    incident_events: i.incidentEvents,
    incidents_events: i.incidentEvents,
    alert_status: i.alertStatus,
    created_at: isoTime(i.createdAt),
    updated_at: isoTime(i.updatedAt),
    properties: {
      webhook: i.webhookMasked,
      username: i.username,
      channel: i.channel,
      alert_channel: i.alertChannel,
      incident_channel: i.incidentChannel,
    },
  };
}

/** A project hook, GitLab's shape (the token never; `signing_secret` only when just issued). */
export function toHookJson(h: channelsV1.Hook, signingSecret?: string) {
  return {
    id: h.id,
    url: h.url,
    project_id: h.projectId,
    alert_events: h.alertEvents,
    incident_events: h.incidentEvents,
    enable_ssl_verification: h.enableSslVerification,
    signing: h.signing,
    token_set: h.tokenSet,
    alert_status: h.alertStatus,
    disabled_until: null,
    created_at: isoTime(h.createdAt),
    updated_at: isoTime(h.updatedAt),
    previous_signing_secret_expires_at: h.previousSigningSecretExpiresAt ? isoTime(h.previousSigningSecretExpiresAt) : null,
    ...(signingSecret ? { signing_secret: signingSecret } : {}),
  };
}

/** One delivery of the log: `{id, event_type, status, attempts, response_status, duration_ms, error, created_at}`. */
export function toDeliveryJson(d: channelsV1.Delivery) {
  return {
    id: Number(d.id),
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    response_status: d.responseStatus || null,
    duration_ms: d.durationMs,
    error: d.error || null,
    created_at: isoTime(d.createdAt),
  };
}
