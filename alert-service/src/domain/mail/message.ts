import type { Alert } from "../alerts/model.js";
import type { MailRecipient, OutgoingMail, Transition } from "./ports.js";

/** What every message of a deployment shares. */
export interface MailSettings {
  /** `Tocsin <tocsin@host>` or MAIL_FROM. */
  from: string;
  /** EXTERNAL_URL without a trailing slash. */
  externalUrl: string;
  /** SECRET_KEY: signs the acknowledge links of pages (without it pages carry none). */
  secretKey?: string | undefined;
}

export interface ProjectInfo {
  id: number;
  /** `path_with_namespace` (also the project's full path). */
  fullPath: string;
}

/** The host part of generated Message-IDs. */
export function messageHost(externalUrl: string): string {
  return new URL(externalUrl).hostname || "localhost";
}

/** Stable per (alert, transition, recipient), so that a retried job sends the very same message. */
function alertMessageId(externalUrl: string, alertId: number, transition: Transition, userId: number): string {
  return `tocsin.alert-${alertId}.${transition}.user-${userId}@${messageHost(externalUrl)}`;
}

export function alertLink(externalUrl: string, fullPath: string, iid: number): string {
  return `${externalUrl}/${fullPath}/-/alert_management/${iid}/details`;
}

export const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/** The fields of section 9, in order, as label → value (empty values are left out). */
export function alertFields(alert: Alert, transition: Transition): Array<[string, string]> {
  const fields: Array<[string, string]> = [
    ["Title", alert.title],
    ["Severity", alert.severity],
    ["Status", transition === "resolved" ? "resolved" : alert.status],
    ["Start time", alert.startedAt.toISOString()],
  ];
  if (transition === "resolved" && alert.endedAt) fields.push(["End time", alert.endedAt.toISOString()]);
  fields.push(
    ["Events", String(alert.events)],
    ["Service", alert.service],
    ["Monitoring tool", alert.monitoringTool],
    ["Hosts", alert.hosts.join(", ")],
    ["Description", alert.description],
  );
  return fields.filter(([, value]) => value !== "");
}

export function listHeaders(project: ProjectInfo, iid?: number): Record<string, string> {
  return {
    // RFC 2919: a phrase (the path, as PRODUCT.md asks) and a dot-atom id.
    "List-Id": `${project.fullPath} <${project.fullPath.replaceAll("/", ".")}.${project.id}.tocsin>`,
    "X-Tocsin-Project": project.fullPath,
    ...(iid === undefined ? {} : { "X-Tocsin-Alert-IID": String(iid) }),
    "Auto-Submitted": "auto-generated",
  };
}

function htmlPage(heading: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(heading)}</title></head>
<body style="font-family:sans-serif;color:#1f1e24">
<h2 style="font-size:18px">${escapeHtml(heading)}</h2>
${body}
<p style="color:#737278;font-size:12px">You are receiving this e-mail because you are an Owner or Maintainer of the project. Change your notification level to stop it.</p>
</body></html>
`;
}

/** The triggered or resolved e-mail of one alert to one recipient (PRODUCT.md section 9). */
export function renderAlertMail(
  settings: MailSettings,
  project: ProjectInfo,
  alert: Alert,
  transition: Transition,
  to: MailRecipient,
): OutgoingMail {
  const link = alertLink(settings.externalUrl, project.fullPath, alert.iid);
  const subject =
    transition === "resolved"
      ? `${project.fullPath} | Alert resolved: ${alert.title}`
      : `${project.fullPath} | Alert: ${alert.title}`;
  const fields = alertFields(alert, transition);
  const text = `${subject}\n\n${fields.map(([k, v]) => `${k}: ${v}`).join("\n")}\n\nView the alert: ${link}\n`;
  const rows = fields
    .map(([k, v]) => `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join("\n");
  const html = htmlPage(
    transition === "resolved" ? `Alert resolved: ${alert.title}` : `Alert: ${alert.title}`,
    `<table>\n${rows}\n</table>\n<p><a href="${escapeHtml(link)}">View the alert in ${escapeHtml(project.fullPath)}</a></p>`,
  );
  return {
    messageId: alertMessageId(settings.externalUrl, alert.id, transition, to.userId),
    from: settings.from,
    to: to.email,
    subject,
    text,
    html,
    ...(transition === "resolved" ? { inReplyTo: alertMessageId(settings.externalUrl, alert.id, "triggered", to.userId) } : {}),
    headers: listHeaders(project, alert.iid),
  };
}

export interface DigestEntry {
  alert: Alert;
  transition: Transition;
}

/** One digest of a storm window to one recipient: `<path> | N more alerts`. */
export function renderDigestMail(
  settings: MailSettings,
  project: ProjectInfo,
  windowStart: number,
  entries: DigestEntry[],
  to: MailRecipient,
): OutgoingMail {
  const subject = `${project.fullPath} | ${entries.length} more alerts`;
  const line = ({ alert, transition }: DigestEntry) =>
    `${transition === "resolved" ? "Resolved" : "Alert"}: ${alert.title} (${alert.severity}, started ${alert.startedAt.toISOString()})`;
  const link = (e: DigestEntry) => alertLink(settings.externalUrl, project.fullPath, e.alert.iid);
  const text = `${subject}\n\n${entries.map((e) => `- ${line(e)}\n  ${link(e)}`).join("\n")}\n`;
  const items = entries.map((e) => `<li><a href="${escapeHtml(link(e))}">${escapeHtml(line(e))}</a></li>`).join("\n");
  const html = htmlPage(subject, `<p>More alerts arrived than are mailed one by one:</p>\n<ul>\n${items}\n</ul>`);
  return {
    messageId: `tocsin.digest-${project.id}-${windowStart}.user-${to.userId}@${messageHost(settings.externalUrl)}`,
    from: settings.from,
    to: to.email,
    subject,
    text,
    html,
    headers: listHeaders(project),
  };
}
