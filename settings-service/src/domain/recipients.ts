import type { CallContext } from "@tocsin/core";
import { type EventName, EXCLUDED_WATCHER_EVENTS, GLOBAL_DEFAULT_LEVEL, type Level, parseEvent } from "./events.js";
import type { Directory, SettingsStore, StoredSetting } from "./ports.js";

export interface RecipientQuery {
  projectId: number;
  event: string;
  participantUserIds: readonly number[];
  mentionedUserIds: readonly number[];
}

export type RecipientReason = "watch" | "participating" | "mention" | "custom";

export interface Recipient {
  userId: number;
  email: string;
  /** The effective level (never `global`). */
  level: Level;
  reason: RecipientReason;
}

/** What decides one member: the effective setting after the `global` fallbacks. */
export interface EffectiveSetting {
  level: Exclude<Level, "global">;
  /** Events of the setting that supplied the level (custom only matters). */
  events: StoredSetting["events"];
}

export interface Involvement {
  participant: boolean;
  mentioned: boolean;
}

/**
 * The effective setting of one user for a project: the project setting; when it is `global` or
 * absent, the nearest group setting up the ancestry that is not `global`; else the user's global
 * setting (default `participating`).
 */
export function effectiveSetting(
  project: StoredSetting | undefined,
  groupsNearestFirst: ReadonlyArray<StoredSetting | undefined>,
  global: StoredSetting | undefined,
): EffectiveSetting {
  for (const s of [project, ...groupsNearestFirst]) {
    if (s && s.level !== "global") return { level: s.level, events: s.events };
  }
  const level = global && global.level !== "global" ? global.level : GLOBAL_DEFAULT_LEVEL;
  return { level: level as EffectiveSetting["level"], events: global?.events ?? {} };
}

/**
 * Whether (and why) a member with this effective setting hears of `event`. The rules, in order:
 * disabled → never; watch → always, except for the excluded watcher events, which fall back to
 * the participating rule; custom → when the event is switched on; participating, watch (excluded
 * event) and custom → when the user participates; every level but disabled → when mentioned.
 */
export function decide(setting: EffectiveSetting, event: EventName, who: Involvement): RecipientReason | undefined {
  const { level } = setting;
  if (level === "disabled") return undefined;
  if (level === "watch" && !EXCLUDED_WATCHER_EVENTS.has(event)) return "watch";
  if (level === "custom" && setting.events[event] === true) return "custom";
  if (who.participant && (level === "participating" || level === "watch" || level === "custom")) return "participating";
  if (who.mentioned) return "mention";
  return undefined;
}

/** Looks up stored settings by (user, source type, source id). */
function indexSettings(settings: StoredSetting[]) {
  const byKey = new Map<string, StoredSetting>();
  for (const s of settings) byKey.set(`${s.userId}:${s.sourceType}:${s.sourceId}`, s);
  return (userId: number, type: StoredSetting["sourceType"], id: number) => byKey.get(`${userId}:${type}:${id}`);
}

/**
 * Each member's effective setting for the project and the address they are mailed at (their
 * global notification e-mail, else the primary one): one read of the store for all of them.
 */
export async function memberSettings<M extends { userId: number; email: string }>(
  store: SettingsStore,
  members: readonly M[],
  project: { id: number; ancestorGroupIds: number[] },
): Promise<Array<{ member: M; setting: EffectiveSetting; email: string }>> {
  if (members.length === 0) return [];
  const userIds = members.map((m) => m.userId);
  const lookup = indexSettings(await store.listForUsers(userIds, project.id, project.ancestorGroupIds));
  return members.map((member) => {
    const global = lookup(member.userId, "global", 0);
    const setting = effectiveSetting(
      lookup(member.userId, "project", project.id),
      project.ancestorGroupIds.map((g) => lookup(member.userId, "group", g)),
      global,
    );
    return { member, setting, email: global?.notificationEmail ?? member.email };
  });
}

/**
 * Decides whom to notify of an event in a project. Only members (direct or inherited) are
 * candidates; participants and mentioned users who are not members are ignored. Two reads of
 * auth-service and one read of the store, whatever the number of members.
 */
export async function resolveRecipients(
  deps: { store: SettingsStore; directory: Directory },
  query: RecipientQuery,
  ctx: CallContext,
): Promise<Recipient[]> {
  const event = parseEvent(query.event);
  const project = await deps.directory.getProject(String(query.projectId), undefined, ctx);
  const members = await deps.directory.listProjectMembers(project.id, ctx);
  const participants = new Set(query.participantUserIds);
  const mentioned = new Set(query.mentionedUserIds);

  const out: Recipient[] = [];
  for (const { member, setting, email } of await memberSettings(deps.store, members, project)) {
    const reason = decide(setting, event, {
      participant: participants.has(member.userId),
      mentioned: mentioned.has(member.userId),
    });
    if (reason) out.push({ userId: member.userId, email, level: setting.level, reason });
  }
  return out.sort((a, b) => a.userId - b.userId);
}
