import type { CallContext } from "@tocsin/core";
import type { Plan } from "../ports.js";
import type { Override, OverrideFields, Policy, PolicyFields, Rotation, RotationFields, Schedule } from "./types.js";

export type ScheduleFields = Pick<Schedule, "name" | "description" | "timezone">;

/**
 * Storage of schedules, rotations, overrides and escalation policies. The database holds the
 * invariants: schedule names unique per project, rotation names unique per schedule (both →
 * `nameTaken()`), at most one policy per project (→ `policyExists()`), schedule iids never
 * reused in a project. Reads of a missing item answer undefined; deletes answer whether they
 * deleted.
 */
export interface OncallStore {
  createSchedule(projectId: number, fields: ScheduleFields): Promise<Schedule>;
  listSchedules(projectId: number): Promise<Schedule[]>;
  getSchedule(projectId: number, iid: number): Promise<Schedule | undefined>;
  updateSchedule(projectId: number, iid: number, fields: ScheduleFields): Promise<Schedule | undefined>;
  /** Deletes the schedule with its rotations and overrides. */
  deleteSchedule(projectId: number, iid: number): Promise<boolean>;

  createRotation(projectId: number, scheduleIid: number, fields: RotationFields): Promise<Rotation>;
  /** In creation order. */
  listRotations(projectId: number, scheduleIid: number): Promise<Rotation[]>;
  getRotation(projectId: number, scheduleIid: number, id: number): Promise<Rotation | undefined>;
  updateRotation(projectId: number, scheduleIid: number, id: number, fields: RotationFields): Promise<Rotation | undefined>;
  deleteRotation(projectId: number, scheduleIid: number, id: number): Promise<boolean>;

  createOverride(projectId: number, scheduleIid: number, fields: OverrideFields): Promise<Override>;
  /** Overrides that meet `[from, to)` when given (all otherwise), by start time. */
  listOverrides(projectId: number, scheduleIid: number, range?: { from: Date; to: Date }): Promise<Override[]>;
  deleteOverride(projectId: number, scheduleIid: number, id: number): Promise<boolean>;

  createPolicy(projectId: number, fields: PolicyFields): Promise<Policy>;
  getPolicy(projectId: number): Promise<Policy | undefined>;
  updatePolicy(projectId: number, id: number, fields: PolicyFields): Promise<Policy | undefined>;
  deletePolicy(projectId: number, id: number): Promise<boolean>;

  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OncallProject {
  id: number;
  tier: Plan;
  /** The caller's effective access level (GitLab numbers; 0 = none). */
  accessLevel: number;
}

export interface OncallUser {
  id: number;
  username: string;
  name: string;
  blocked: boolean;
}

export interface OncallMember extends OncallUser {
  accessLevel: number;
}

/** What the on-call use-cases ask auth-service (errors pass through unchanged). */
export interface OncallDirectory {
  /** The project as `viewerId` sees it (NOT_FOUND when invisible); internal calls see everything. */
  getProject(idOrPath: string, viewerId: number | undefined, ctx: CallContext): Promise<OncallProject>;
  /** Direct and inherited members. */
  listMembers(projectId: number, ctx: CallContext): Promise<OncallMember[]>;
  /** The users that exist among `ids`, in any order. */
  getUsers(ids: readonly number[], ctx: CallContext): Promise<OncallUser[]>;
}
