/** On-call schedules, rotations, overrides and escalation policies (PRODUCT.md section 11). */

export type RotationUnit = "hours" | "days" | "weeks";
export const ROTATION_UNITS: readonly RotationUnit[] = ["hours", "days", "weeks"];

/** A daily window; `endTime` before `startTime` runs overnight into the next day. */
export interface ActivePeriod {
  /** `HH:MM`, wall clock in the schedule's zone. */
  startTime: string;
  endTime: string;
}

export interface Schedule {
  projectId: number;
  /** Numbered per project from 1. */
  iid: number;
  /** 1–200 characters, unique in the project. */
  name: string;
  description: string;
  /** IANA zone, e.g. `Europe/London`. */
  timezone: string;
}

export interface RotationFields {
  /** 1–200 characters, unique in the schedule. */
  name: string;
  /** `YYYY-MM-DDTHH:MM`, wall clock in the schedule's zone. */
  startsAt: string;
  /** Same form; after `startsAt`. */
  endsAt?: string;
  /** 1–1000 units per shift. */
  length: number;
  unit: RotationUnit;
  /** Not with `hours`. */
  activePeriod?: ActivePeriod;
  /** 1–100 user ids, in hand-over order (a user may appear more than once). */
  participantIds: number[];
}

export interface Rotation extends RotationFields {
  id: number;
  projectId: number;
  scheduleIid: number;
}

export interface OverrideFields {
  userId: number;
  startsAt: Date;
  endsAt: Date;
}

export interface Override extends OverrideFields {
  id: number;
  projectId: number;
  scheduleIid: number;
}

export type RuleStatus = "acknowledged" | "resolved";

/** One escalation rule: exactly one of `scheduleIid` and `userId` is set. */
export interface EscalationRule {
  /** The status that stops the rule from firing. */
  status: RuleStatus;
  /** 0–86400 s after the trigger. */
  elapsedTimeSeconds: number;
  scheduleIid?: number;
  userId?: number;
}

export interface PolicyFields {
  /** 1–72 characters. */
  name: string;
  /** ≤ 160 characters. */
  description: string;
  /** 1–10 rules, unique by (target, status, elapsed). */
  rules: EscalationRule[];
  /** Null, or 60–86400 s and above every rule's elapsed time. */
  repeatEverySeconds: number | null;
  /** 0–9 more rounds. */
  maxRepeats: number;
}

export interface Policy extends PolicyFields {
  id: number;
  projectId: number;
}

/** One stretch of time a user is on call: from a rotation or from an override. */
export interface Shift {
  rotationId: number | null;
  overrideId: number | null;
  userId: number;
  /** Epoch milliseconds; `[startsAt, endsAt)`. */
  startsAt: number;
  endsAt: number;
}
