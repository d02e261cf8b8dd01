import { type CallContext, type Clock, forbidden, invalidArgument } from "@tocsin/core";
import {
  type Events,
  type EventsChange,
  fullEvents,
  GLOBAL_DEFAULT_LEVEL,
  type Level,
  parseLevel,
  SOURCE_DEFAULT_LEVEL,
} from "./events.js";
import type { Directory, SettingKey, SettingsStore, StoredSetting } from "./ports.js";

/** A setting as callers see it: defaults filled in, every event a boolean. */
export interface SettingView {
  level: Level;
  /** Global setting only (empty otherwise). */
  notificationEmail: string;
  events: Events;
  /** Whether `new_epic` applies to this setting (shown in `events` only then). */
  newEpicApplies: boolean;
}

interface GlobalUpdate {
  level?: string;
  notificationEmail?: string;
  events: EventsChange;
}

interface SourceUpdate {
  level?: string;
  events: EventsChange;
}

export type SourceKind = "group" | "project";

export interface SettingsUseCases {
  getGlobal(userId: number, ctx: CallContext): Promise<SettingView>;
  updateGlobal(userId: number, update: GlobalUpdate, ctx: CallContext): Promise<SettingView>;
  getSource(userId: number, kind: SourceKind, idOrPath: string, ctx: CallContext): Promise<SettingView>;
  updateSource(userId: number, kind: SourceKind, idOrPath: string, update: SourceUpdate, ctx: CallContext): Promise<SettingView>;
}

const EMAIL_NOT_VERIFIED = "must be an email you have verified";

function view(stored: StoredSetting | undefined, defaultLevel: Level, email: string, newEpicApplies: boolean): SettingView {
  return { level: stored?.level ?? defaultLevel, notificationEmail: email, events: fullEvents(stored?.events), newEpicApplies };
}

/** Drops `new_epic` from a change where it does not apply: GitLab ignores undeclared params. */
function applicableEvents(events: EventsChange, newEpicApplies: boolean): EventsChange {
  if (newEpicApplies || events.new_epic === undefined) return events;
  const { new_epic: _ignored, ...rest } = events;
  return rest;
}

/** A principal may only read and change its own settings; internal calls may act for anyone. */
function assertActsFor(userId: number, ctx: CallContext): void {
  if (ctx.principal && ctx.principal.userId !== userId) throw forbidden();
}

export function createSettingsUseCases(deps: { store: SettingsStore; directory: Directory; clock: Clock }): SettingsUseCases {
  const { store, directory, clock } = deps;

  const globalKey = (userId: number): SettingKey => ({ userId, sourceType: "global", sourceId: 0 });

  const memberOfUltimate = async (userId: number, ctx: CallContext) =>
    (await directory.listUserGroups(userId, ctx)).some((g) => g.plan === "ultimate");

  const primaryEmail = async (userId: number, ctx: CallContext) => {
    const emails = await directory.listEmails(userId, ctx);
    return (emails.find((e) => e.primary) ?? emails[0])?.email ?? "";
  };

  /** Resolves a group or project the user can see, or throws auth's NOT_FOUND unchanged. */
  const resolveSource = async (userId: number, kind: SourceKind, idOrPath: string, ctx: CallContext) => {
    if (kind === "group") {
      const group = await directory.getGroup(idOrPath, userId, ctx);
      return {
        key: { userId, sourceType: kind, sourceId: group.id } satisfies SettingKey,
        newEpicApplies: group.plan === "ultimate",
      };
    }
    const project = await directory.getProject(idOrPath, userId, ctx);
    return { key: { userId, sourceType: kind, sourceId: project.id } satisfies SettingKey, newEpicApplies: false };
  };

  return {
    async getGlobal(userId, ctx) {
      assertActsFor(userId, ctx);
      const [stored, applies] = await Promise.all([store.get(globalKey(userId)), memberOfUltimate(userId, ctx)]);
      const email = stored?.notificationEmail ?? (await primaryEmail(userId, ctx));
      return view(stored, GLOBAL_DEFAULT_LEVEL, email, applies);
    },

    async updateGlobal(userId, update, ctx) {
      assertActsFor(userId, ctx);
      // Validate everything before writing anything: no half-written change on a 400.
      const level = update.level === undefined ? undefined : parseLevel(update.level);
      const [emails, applies] = await Promise.all([directory.listEmails(userId, ctx), memberOfUltimate(userId, ctx)]);
      if (update.notificationEmail !== undefined) {
        const wanted = update.notificationEmail;
        if (!emails.some((e) => e.confirmed && e.email.toLowerCase() === wanted.toLowerCase())) {
          throw invalidArgument("EMAIL_NOT_VERIFIED", `Notification email ${EMAIL_NOT_VERIFIED}`, {
            notification_email: [EMAIL_NOT_VERIFIED],
          });
        }
      }
      const stored = await store.apply(globalKey(userId), {
        defaultLevel: GLOBAL_DEFAULT_LEVEL,
        ...(level === undefined ? {} : { level }),
        ...(update.notificationEmail === undefined ? {} : { notificationEmail: update.notificationEmail }),
        events: applicableEvents(update.events, applies),
        at: clock.now(),
      });
      const primary = (emails.find((e) => e.primary) ?? emails[0])?.email ?? "";
      return view(stored, GLOBAL_DEFAULT_LEVEL, stored.notificationEmail ?? primary, applies);
    },

    async getSource(userId, kind, idOrPath, ctx) {
      assertActsFor(userId, ctx);
      const source = await resolveSource(userId, kind, idOrPath, ctx);
      // A GET never persists anything: an unsaved setting is shown with its default.
      return view(await store.get(source.key), SOURCE_DEFAULT_LEVEL, "", source.newEpicApplies);
    },

    async updateSource(userId, kind, idOrPath, update, ctx) {
      assertActsFor(userId, ctx);
      // GitLab finds the source first: an invisible source is 404 even with a bad level.
      const source = await resolveSource(userId, kind, idOrPath, ctx);
      const level = update.level === undefined ? undefined : parseLevel(update.level);
      const stored = await store.apply(source.key, {
        defaultLevel: SOURCE_DEFAULT_LEVEL,
        ...(level === undefined ? {} : { level }),
        events: applicableEvents(update.events, source.newEpicApplies),
        at: clock.now(),
      });
      return view(stored, SOURCE_DEFAULT_LEVEL, "", source.newEpicApplies);
    },
  };
}
