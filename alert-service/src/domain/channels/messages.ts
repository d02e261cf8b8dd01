import type { Alert, Incident } from "../alerts/model.js";
import type { DestinationRecord } from "./types.js";

/** What one message tells: what happened (`eventType`), to what (the alert, its incident), how bad, where to look. */
export interface MessageFacts {
  eventType: string;
  project: { id: number; fullPath: string; webUrl: string };
  alert: Alert;
  incident: Incident | undefined;
  /** `<EXTERNAL_URL>/<full_path>/-/alert_management/<iid>/details`. */
  alertUrl: string;
}

/** A window's storm summary: how many messages were folded into it. */
export interface SummaryFacts {
  project: { id: number; fullPath: string; webUrl: string };
  count: number;
  windowMinutes: number;
  /** The project's alert list. */
  listUrl: string;
}

/** A message's JSON body and its own headers (the hook's; chat has none). */
export interface Message {
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

const HEADLINES: Record<string, string> = {
  "alert.triggered": "Alert triggered",
  "alert.acknowledged": "Alert acknowledged",
  "alert.resolved": "Alert resolved",
  "alert.paged": "Alert paged",
  "incident.opened": "Incident opened",
  "incident.closed": "Incident closed",
  test: "Test message",
};

/** GitLab's alert colour for a firing alert; green once resolved or closed. */
const colorOf = (eventType: string) =>
  eventType === "alert.resolved" || eventType === "incident.closed" ? "#108548" : "#C95823";

const headline = (f: MessageFacts) => `${HEADLINES[f.eventType] ?? f.eventType} in ${f.project.fullPath}`;

function factsOf(f: MessageFacts): Array<[string, string]> {
  const facts: Array<[string, string]> = [
    ["Severity", f.alert.severity],
    ["Status", f.alert.status],
    ["Events", String(f.alert.events)],
    ["Start time", f.alert.startedAt.toISOString()],
  ];
  if (f.alert.service) facts.push(["Service", f.alert.service]);
  if (f.incident) facts.push(["Incident", `#${f.incident.iid} (${f.incident.status})`]);
  return facts;
}

/** Slack's `<url|text>` link text must not carry its own markup characters. */
const slackEscape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The chat channel of the event: the event's own, else the integration's default; none for Teams. */
function channelOf(d: DestinationRecord, eventType: string): string {
  const own = eventType.startsWith("incident.") ? d.incidentChannel : d.alertChannel;
  return own || d.channel;
}

function chatOverrides(d: DestinationRecord, eventType: string): Record<string, string> {
  const channel = channelOf(d, eventType);
  return { ...(channel ? { channel } : {}), ...(d.username ? { username: d.username } : {}) };
}

function slack(d: DestinationRecord, f: MessageFacts): Message {
  const text = `${headline(f)}: ${f.alert.title} (${f.alert.severity}) ${f.alertUrl}`;
  const blocks = [
    {
      type: "section",
      text: { type: "mrkdwn", text: `*${slackEscape(headline(f))}*\n<${f.alertUrl}|${slackEscape(f.alert.title)}>` },
    },
    { type: "section", fields: factsOf(f).map(([k, v]) => ({ type: "mrkdwn", text: `*${k}*\n${slackEscape(v)}` })) },
  ];
  return { body: { ...chatOverrides(d, f.eventType), text, blocks }, headers: {} };
}

function mattermost(d: DestinationRecord, f: MessageFacts): Message {
  const attachment = {
    fallback: `${headline(f)}: ${f.alert.title}`,
    color: colorOf(f.eventType),
    title: f.alert.title,
    title_link: f.alertUrl,
    fields: factsOf(f).map(([title, value]) => ({ title, value, short: true })),
  };
  return { body: { ...chatOverrides(d, f.eventType), text: headline(f), attachments: [attachment] }, headers: {} };
}

/** A Teams Workflows post: one Adaptive Card 1.4 with the same facts and an "Open alert" action. */
function teams(f: MessageFacts): Message {
  const card = {
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    type: "AdaptiveCard",
    version: "1.4",
    body: [
      { type: "TextBlock", text: headline(f), weight: "Bolder", size: "Medium", wrap: true },
      { type: "TextBlock", text: f.alert.title, wrap: true },
      { type: "FactSet", facts: factsOf(f).map(([title, value]) => ({ title, value })) },
    ],
    actions: [{ type: "Action.OpenUrl", title: "Open alert", url: f.alertUrl }],
  };
  return {
    body: {
      type: "message",
      attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content: card }],
    },
    headers: {},
  };
}

const iso = (d: Date | undefined) => (d ? d.toISOString() : null);
const orNull = (s: string) => (s === "" ? null : s);

/** The alert as the REST API shows it (PRODUCT.md section 4), with its console link. */
function alertAttributes(f: MessageFacts) {
  const a = f.alert;
  return {
    iid: a.iid,
    title: a.title,
    description: orNull(a.description),
    severity: a.severity,
    status: a.status,
    service: orNull(a.service),
    monitoring_tool: orNull(a.monitoringTool),
    hosts: a.hosts,
    events: a.events,
    fingerprint: a.fingerprint ?? null,
    started_at: iso(a.startedAt),
    ended_at: iso(a.endedAt),
    environment: orNull(a.environmentName),
    incident: a.incidentIid ? { iid: a.incidentIid } : null,
    created_at: iso(a.createdAt),
    updated_at: iso(a.updatedAt),
    url: f.alertUrl,
  };
}

function incidentAttributes(f: MessageFacts) {
  const i = f.incident;
  return {
    iid: i?.iid ?? f.alert.incidentIid,
    title: i?.title ?? f.alert.title,
    severity: i?.severity ?? f.alert.severity,
    status: i?.status ?? (f.eventType === "incident.closed" ? "closed" : "open"),
    alert_iid: f.alert.iid,
    created_at: iso(i?.createdAt),
    closed_at: iso(i?.closedAt),
    url: f.alertUrl,
  };
}

/** A project hook's body, GitLab's shape: `{object_kind, event_type, project, object_attributes}`. */
function hook(d: DestinationRecord, f: MessageFacts): Message {
  const incident = f.eventType.startsWith("incident.");
  const body = {
    object_kind: incident ? "incident" : "alert",
    event_type: f.eventType,
    project: { id: f.project.id, path_with_namespace: f.project.fullPath, web_url: f.project.webUrl },
    object_attributes: incident ? incidentAttributes(f) : alertAttributes(f),
  };
  const headers: Record<string, string> = { "X-Gitlab-Event": incident ? "Incident Hook" : "Alert Hook" };
  if (d.token) headers["X-Gitlab-Token"] = d.token;
  return { body, headers };
}

/** The message of an event for one destination. */
export function messageFor(d: DestinationRecord, f: MessageFacts): Message {
  if (d.kind === "slack") return slack(d, f);
  if (d.kind === "mattermost") return mattermost(d, f);
  if (d.kind === "microsoft-teams") return teams(f);
  return hook(d, f);
}

/** A window's summary for one destination: one message instead of the ones past the storm limit. */
export function summaryFor(d: DestinationRecord, s: SummaryFacts): Message {
  const text = `Alert storm in ${s.project.fullPath}: ${s.count} more notifications in the last ${s.windowMinutes} minutes were not sent one by one. ${s.listUrl}`;
  if (d.kind === "slack") return { body: { ...chatOverrides(d, "alert.triggered"), text }, headers: {} };
  if (d.kind === "mattermost") return { body: { ...chatOverrides(d, "alert.triggered"), text }, headers: {} };
  if (d.kind === "microsoft-teams") {
    const card = {
      $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
      type: "AdaptiveCard",
      version: "1.4",
      body: [{ type: "TextBlock", text, wrap: true }],
      actions: [{ type: "Action.OpenUrl", title: "Open alerts", url: s.listUrl }],
    };
    return {
      body: { type: "message", attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", content: card }] },
      headers: {},
    };
  }
  const body = {
    object_kind: "alert",
    event_type: "alert.summary",
    project: { id: s.project.id, path_with_namespace: s.project.fullPath, web_url: s.project.webUrl },
    object_attributes: { count: s.count, window_minutes: s.windowMinutes, url: s.listUrl },
  };
  const headers: Record<string, string> = { "X-Gitlab-Event": "Alert Hook" };
  if (d.token) headers["X-Gitlab-Token"] = d.token;
  return { body, headers };
}
