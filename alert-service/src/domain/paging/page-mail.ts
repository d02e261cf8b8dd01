import type { Logger } from "@tocsin/core";
import type { Alert } from "../alerts/model.js";
import {
  alertFields,
  alertLink,
  escapeHtml,
  listHeaders,
  type MailSettings,
  messageHost,
  type ProjectInfo,
} from "../mail/message.js";
import type { MailDeps } from "../mail/pipeline.js";
import type { OutgoingMail } from "../mail/ports.js";
import { ACK_TOKEN_TTL_MS, signAckToken } from "./ack-token.js";
import type { PagedMember, PageMailJob, ProjectMembers } from "./ports.js";

/** The acknowledge link of a page to one user, valid 24 h from `now`; undefined without SECRET_KEY. */
function ackLink(settings: MailSettings, alertId: number, userId: number, now: Date): string | undefined {
  if (!settings.secretKey) return undefined;
  const token = signAckToken(settings.secretKey, { alertId, userId, expiresAt: new Date(now.getTime() + ACK_TOKEN_TTL_MS) });
  return `${settings.externalUrl}/-/alerts/acknowledge?token=${token}`;
}

/** One page e-mail (PRODUCT.md section 11): `<path> | Paging: <title>`, the alert's fields, its link, the acknowledge link. */
function renderPageMail(
  settings: MailSettings,
  project: ProjectInfo,
  alert: Alert,
  page: { key: string; policyName: string; ackUrl: string | undefined },
  to: { userId: number; email: string },
): OutgoingMail {
  const link = alertLink(settings.externalUrl, project.fullPath, alert.iid);
  const subject = `${project.fullPath} | Paging: ${alert.title}`;
  const fields = alertFields(alert, "triggered");
  const why = `You are paged by the escalation policy ${page.policyName} of ${project.fullPath}.`;
  const ackText = page.ackUrl ? `Acknowledge the alert: ${page.ackUrl}\n` : "";
  const text = `${subject}\n\n${why}\n\n${fields.map(([k, v]) => `${k}: ${v}`).join("\n")}\n\nView the alert: ${link}\n${ackText}`;
  const rows = fields
    .map(([k, v]) => `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join("\n");
  const ackHtml = page.ackUrl ? `<p><a href="${escapeHtml(page.ackUrl)}">Acknowledge the alert</a></p>\n` : "";
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family:sans-serif;color:#1f1e24">
<h2 style="font-size:18px">Paging: ${escapeHtml(alert.title)}</h2>
<p>${escapeHtml(why)}</p>
<table>
${rows}
</table>
${ackHtml}<p><a href="${escapeHtml(link)}">View the alert in ${escapeHtml(project.fullPath)}</a></p>
</body></html>
`;
  return {
    messageId: `tocsin.${page.key.replaceAll(":", ".")}.user-${to.userId}@${messageHost(settings.externalUrl)}`,
    from: settings.from,
    to: to.email,
    subject,
    text,
    html,
    headers: { ...listHeaders(project, alert.iid), "X-Tocsin-Page": page.key },
  };
}

/**
 * The mail-queue `page` job: one send job per paged user who is still an active member (at their
 * notification e-mail, or primary e-mail when they set none), keyed `<page key>:<user id>`, outside the storm digest.
 */
export async function pageMail(deps: MailDeps & { members: ProjectMembers }, job: PageMailJob, logger: Logger): Promise<void> {
  const alert = await deps.alerts.getById(job.alertId);
  if (!alert) return;
  const ctx = { requestId: job.requestId };
  const ref = await deps.projects.byId(job.projectId, ctx);
  const project = { id: ref.id, fullPath: ref.fullPath };
  const members = new Map<number, PagedMember>((await deps.members.members(job.projectId, ctx)).map((m) => [m.id, m]));
  const now = deps.clock.now();
  const paged = job.users.filter((u) => {
    const member = members.get(u.id);
    return member && !member.blocked;
  });
  const emails = await deps.recipients.notificationEmails(
    paged.map((u) => u.id),
    ctx,
  );
  const sends = paged.flatMap((u) => {
    const member = members.get(u.id) as PagedMember;
    const email = emails.get(u.id) ?? member.email;
    if (!email) return [];
    const ackUrl = ackLink(deps.settings, alert.id, u.id, now);
    return [
      {
        requestId: job.requestId,
        key: `${job.key}:${u.id}`,
        mail: renderPageMail(
          deps.settings,
          project,
          alert,
          { key: job.key, policyName: job.policyName, ackUrl },
          {
            userId: u.id,
            email,
          },
        ),
      },
    ];
  });
  await deps.jobs.enqueueSends(sends);
  logger.debug({ key: job.key, users: sends.length }, "page e-mails queued");
}
