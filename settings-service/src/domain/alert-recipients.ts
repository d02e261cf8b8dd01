import type { CallContext } from "@tocsin/core";
import type { Directory, SettingsStore } from "./ports.js";
import { effectiveSetting, indexSettings } from "./recipients.js";

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
  if (members.length === 0) return [];
  const lookup = indexSettings(
    await deps.store.listForUsers(
      members.map((m) => m.userId),
      project.id,
      project.ancestorGroupIds,
    ),
  );
  const out: AlertRecipient[] = [];
  for (const member of members) {
    const global = lookup(member.userId, "global", 0);
    const setting = effectiveSetting(
      lookup(member.userId, "project", project.id),
      project.ancestorGroupIds.map((g) => lookup(member.userId, "group", g)),
      global,
    );
    if (setting.level === "disabled") continue;
    out.push({ userId: member.userId, email: global?.notificationEmail ?? member.email, level: setting.level });
  }
  return out.sort((a, b) => a.userId - b.userId);
}
