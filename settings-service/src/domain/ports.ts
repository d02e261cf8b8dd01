import type { CallContext } from "@tocsin/core";
import type { EventsChange, Level } from "./events.js";

/** Where a setting applies: the user's global setting, or one group or project. */
export type SourceType = "global" | "group" | "project";

/** Identifies one stored setting; `sourceId` is 0 for the global setting. */
export interface SettingKey {
  userId: number;
  sourceType: SourceType;
  sourceId: number;
}

/** One stored setting: at most one per (user, source type, source id), enforced by the store. */
export interface StoredSetting extends SettingKey {
  level: Level;
  /** Global setting only; undefined means "the primary e-mail". */
  notificationEmail: string | undefined;
  /** Only the events ever written; absent ones read as false. */
  events: EventsChange;
  createdAt: Date;
  updatedAt: Date;
}

/** A partial change; unset fields keep their value. */
export interface SettingChange {
  /** Level written when the setting does not exist yet and `level` is unset. */
  defaultLevel: Level;
  level?: Level;
  notificationEmail?: string;
  events: EventsChange;
  at: Date;
}

/**
 * The settings storage. Every method is atomic per setting; `apply` is an upsert that creates the
 * setting on first write and merges the change into it, never producing two settings for a key.
 */
export interface SettingsStore {
  /** The stored setting, or undefined when the user never saved one for that source. */
  get(key: SettingKey): Promise<StoredSetting | undefined>;
  /** Creates or merges; returns the setting as stored after the change. */
  apply(key: SettingKey, change: SettingChange): Promise<StoredSetting>;
  /**
   * Every stored setting of `userIds` for the global setting, for `projectId` and for any of
   * `groupIds`, in one read (recipient resolution).
   */
  listForUsers(userIds: readonly number[], projectId: number, groupIds: readonly number[]): Promise<StoredSetting[]>;
  /** The global settings of `userIds` (those who saved one), in one read (paging's e-mails). */
  listGlobal(userIds: readonly number[]): Promise<StoredSetting[]>;
  /** Resolves when the store answers (health). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type Plan = "free" | "premium" | "ultimate";

export interface ProjectInfo {
  id: number;
  /** Groups above the project, nearest first; empty for personal projects. */
  ancestorGroupIds: number[];
  tier: Plan;
}

export interface GroupInfo {
  id: number;
  /** The plan of the group's top-level group. */
  plan: Plan;
}

export interface EmailInfo {
  email: string;
  confirmed: boolean;
  primary: boolean;
}

export interface MemberInfo {
  userId: number;
  /** Primary e-mail. */
  email: string;
  /** Effective access level in the project (GitLab numbers: 40 Maintainer, 50 Owner). */
  accessLevel: number;
  /** A blocked user receives no e-mail. */
  blocked: boolean;
}

/**
 * Identity and access, owned by auth-service. Visibility: `getProject`/`getGroup` with a `viewerId`
 * answer NOT_FOUND (`404 Project Not Found` / `404 Group Not Found`) for sources the user may not
 * see; without a viewer they see everything. `ctx` is the caller's call context: its request id and
 * deadline travel with every call to auth-service.
 */
export interface Directory {
  getProject(idOrPath: string, viewerId: number | undefined, ctx: CallContext): Promise<ProjectInfo>;
  getGroup(idOrPath: string, viewerId: number, ctx: CallContext): Promise<GroupInfo>;
  /** Every e-mail of the user, primary first. */
  listEmails(userId: number, ctx: CallContext): Promise<EmailInfo[]>;
  /** Direct and inherited members of a project. */
  listProjectMembers(projectId: number, ctx: CallContext): Promise<MemberInfo[]>;
  /** Groups the user belongs to, directly or by inheritance, with their effective plan. */
  listUserGroups(userId: number, ctx: CallContext): Promise<GroupInfo[]>;
}
