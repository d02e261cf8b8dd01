import { type CallContext, forbidden, invalidArgument } from "@tocsin/core";
import type { Directory, SettingsStore } from "./ports.js";
import { memberSettings } from "./recipients.js";

/** Maintainer (40) and above hear of alerts. */
const ALERT_MIN_ACCESS_LEVEL = 40;

export interface AlertRecipient {
  userId: number;
  email: string;
  /** The effective level (never `global` nor `disabled`). */
  level: string;
}

/**
 * Whom to e-mail about an alert (PRODUCT.md section 9): the project's Owners and Maintainers,
 * direct or inherited, not blocked, whose effective level for the project is not `disabled`,
 * each at their global notification e-mail (else the primary one). Members come uncached from
 * auth-service and settings from the store, so every change applies to the next call.
 */
export async function resolveAlertRecipients(
  deps: { store: SettingsStore; directory: Directory },
  projectId: number,
  ctx: CallContext,
): Promise<AlertRecipient[]> {
  const project = await deps.directory.getProject(String(projectId), undefined, ctx);
  const members = (await deps.directory.listProjectMembers(project.id, ctx)).filter(
    (m) => m.accessLevel >= ALERT_MIN_ACCESS_LEVEL && !m.blocked,
  );
  const out: AlertRecipient[] = [];
  for (const { member, setting, email } of await memberSettings(deps.store, members, project)) {
    if (setting.level !== "disabled") out.push({ userId: member.userId, email, level: setting.level });
  }
  return out.sort((a, b) => a.userId - b.userId);
}

/** Ids one `notificationEmails` call may ask for: the RPC's limit, `MAX_NOTIFICATION_EMAIL_USERS` of @tocsin/proto (pinned by a test). */
export const MAX_EMAIL_USERS = 1000;

/**
 * The notification e-mails `userIds` saved in their global setting, in one read of the store
 * (paging e-mails several users at once). Users without one are left out: the caller has their
 * primary e-mail. Internal callers only: a principal may read no one else's address.
 */
export async function notificationEmails(
  store: SettingsStore,
  userIds: readonly number[],
  ctx: CallContext,
): Promise<Map<number, string>> {
  if (ctx.principal) throw forbidden();
  if (userIds.length > MAX_EMAIL_USERS)
    throw invalidArgument("TOO_MANY_USERS", `user_ids may hold at most ${MAX_EMAIL_USERS} ids`);
  if (userIds.length === 0) return new Map();
  const stored = await store.listGlobal([...new Set(userIds)]);
  return new Map(stored.flatMap((s) => (s.notificationEmail ? [[s.userId, s.notificationEmail] as const] : [])));
}
