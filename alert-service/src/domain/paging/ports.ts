import type { CallContext } from "@tocsin/core";
import type { Escalation, PageStep, PolicySnapshot } from "./model.js";

/**
 * Escalations and the pages they sent, beside the alerts (same database: a step is written in
 * the rule job's batch with its activity note). Keyed so that re-running a job changes nothing.
 */
export interface EscalationStore {
  /**
   * Starts the alert's escalation for `escalation.triggerOp`, replacing an older trigger's; the
   * same trigger again keeps the first, and an older trigger arriving late (its start job moved
   * into the lane after a newer one's) changes nothing. Returns the escalation that holds.
   */
  start(escalation: Escalation): Promise<Escalation>;
  get(alertId: number): Promise<Escalation | undefined>;
  /** Records a step once per key; a repeat returns the step first recorded. */
  recordStep(step: PageStep): Promise<PageStep>;
  getStep(key: string): Promise<PageStep | undefined>;
  /** The alert's steps (every trigger), in the order they were recorded. */
  steps(alertId: number): Promise<PageStep[]>;
}

/** Who is on call in one schedule at an instant (settings-service): `users` may be paged. */
export interface ScheduleOncall {
  users: Array<{ id: number; username: string }>;
  /** On shift but blocked or no longer members. */
  skipped: Array<{ id: number; username: string }>;
}

/** Port over settings-service's OncallService (internal calls), read fresh on every call. */
export interface OncallDirectory {
  /** The project's escalation policy, undefined when it has none. */
  policy(projectId: number, ctx: CallContext): Promise<PolicySnapshot | undefined>;
  /** Who is on call in the schedule at `at`; undefined when the schedule is gone. */
  oncall(projectId: number, scheduleIid: number, at: Date, ctx: CallContext): Promise<ScheduleOncall | undefined>;
}

/** A project member as paging needs it (auth-service, read fresh). */
export interface PagedMember {
  id: number;
  username: string;
  email: string;
  blocked: boolean;
}

/** Port over auth-service's project members. */
export interface ProjectMembers {
  members(projectId: number, ctx: CallContext): Promise<PagedMember[]>;
}

/**
 * One per alert and trigger: waits in the timer queue (not due later: it is there so that the
 * settings-service call is made off the alert's lane), whose runner reads the project's policy
 * into `policy`; then, in the alert's lane, records the escalation and schedules round 0.
 */
export interface PageStartJob {
  requestId: string;
  projectId: number;
  alertId: number;
  laneKey: string;
  triggerOp: string;
  /** ISO 8601: when the alert triggered (rules are due from it). */
  triggeredAt: string;
  /** Set by the timer runner: the project's policy when read (null: none). */
  policy?: PolicySnapshot | null;
}

/**
 * One (rule, round) of a trigger: waits in the timer queue until due; the runner then asks who is
 * on call (`oncall`) and moves it into the alert's lane, where it pages (store writes only).
 */
export interface PageRuleJob {
  requestId: string;
  projectId: number;
  alertId: number;
  laneKey: string;
  triggerOp: string;
  triggeredAt: string;
  rule: number;
  round: number;
  /** The policy as it was when the alert triggered (edits apply to later triggers). */
  policy: PolicySnapshot;
  /** Set by the timer runner when due: whom the rule pages (and who was skipped). */
  oncall?: ScheduleOncall;
}

/** The mail-queue job of one page: one e-mail per paged user, with an acknowledge link each. */
export interface PageMailJob {
  requestId: string;
  projectId: number;
  alertId: number;
  /** The step's key (`page:…`); each user's delivery is `<key>:<user id>`. */
  key: string;
  policyName: string;
  users: Array<{ id: number; username: string }>;
}

/** The durable queues paging uses (queue/alert-jobs.ts, queue/mail-jobs.ts). Ids are keyed: a repeat adds nothing. */
export interface PagingJobs {
  enqueueStarts(jobs: PageStartJob[]): Promise<void>;
  /** Each rule job waits `delayMs` (0 when already due) in the timer queue. */
  enqueueRules(jobs: Array<{ job: PageRuleJob; delayMs: number }>): Promise<void>;
  enqueuePageMail(job: PageMailJob): Promise<void>;
}
