import type { AlertStatus } from "../alerts/model.js";

/** Paging (PRODUCT.md section 11): an escalation policy as snapshotted when an alert triggers. */

/** One rule: `status` is the alert status that stops it; exactly one target. */
export interface PolicyRule {
  status: "acknowledged" | "resolved";
  elapsedSeconds: number;
  /** A schedule of the project (its iid and name when read), or … */
  schedule?: { iid: number; name: string };
  /** … a user (a member of the project). */
  user?: { id: number; username: string };
}

export interface PolicySnapshot {
  id: number;
  name: string;
  rules: PolicyRule[];
  /** Seconds between rounds; null: no repeats. */
  repeatEverySeconds: number | null;
  /** Further rounds after the first (0–9). */
  maxRepeats: number;
}

/**
 * An alert's escalation for one trigger (`triggerOp`: the op of the change that triggered it). A
 * new trigger replaces it; rule jobs of an older trigger find a different op and do nothing.
 * `policy` null: the project had no policy when the alert triggered.
 */
export interface Escalation {
  alertId: number;
  triggerOp: string;
  triggeredAt: Date;
  policy: PolicySnapshot | null;
}

/**
 * One (rule, round) that ran: whom it paged (none when the schedule had nobody on call), or
 * `stopped` when the alert's status had stopped the rule (nobody paged, said in the activity).
 */
export interface PageStep {
  /** `page:<alertId>:<triggerOp>:<rule>:<round>`. */
  key: string;
  alertId: number;
  triggerOp: string;
  rule: number;
  round: number;
  users: Array<{ id: number; username: string }>;
  stopped: boolean;
  at: Date;
}

/** The id of a (alert, trigger, rule, round): its rule job's id, its step's key, its activity key. */
export const pageKey = (alertId: number, triggerOp: string, rule: number, round: number) =>
  `page:${alertId}:${triggerOp}:${rule}:${round}`;

/**
 * When a rule of a round is due: trigger + round × repeat + the rule's elapsed time, in seconds
 * of `secondMs` (1000; PAGING_SECOND_MS shortens them in tests).
 */
export function dueAt(
  escalation: Pick<Escalation, "triggeredAt">,
  policy: PolicySnapshot,
  rule: number,
  round: number,
  secondMs = 1000,
): Date {
  const elapsed = policy.rules[rule]?.elapsedSeconds ?? 0;
  return new Date(escalation.triggeredAt.getTime() + (round * (policy.repeatEverySeconds ?? 0) + elapsed) * secondMs);
}

/**
 * Whether the alert's status stops a rule: resolved and ignored stop every rule (resolved counts
 * as acknowledged), acknowledged stops the rules whose status is acknowledged.
 */
export function stopsRule(status: AlertStatus, rule: Pick<PolicyRule, "status">): boolean {
  if (status === "resolved" || status === "ignored") return true;
  return status === "acknowledged" && rule.status === "acknowledged";
}

/** Whether round `round` (≥ 1) of the policy exists. */
export const hasRound = (policy: PolicySnapshot, round: number) =>
  round === 0 || (policy.repeatEverySeconds !== null && round <= policy.maxRepeats);

/** What the alert's REST answer shows as `escalation`. */
export interface EscalationView {
  policy: string;
  nextPageAt: Date | null;
  pages: Array<{ users: string[]; rule: number; round: number; at: Date }>;
}

/**
 * The escalation as shown: the pages of the current trigger, and the next rule due that the
 * alert's status does not stop (later rounds only while the alert stays triggered).
 */
export function escalationView(
  escalation: Escalation,
  steps: PageStep[],
  status: AlertStatus,
  secondMs = 1000,
): EscalationView | null {
  const policy = escalation.policy;
  if (!policy) return null;
  const mine = steps.filter((s) => s.triggerOp === escalation.triggerOp).sort((a, b) => a.at.getTime() - b.at.getTime());
  let next: number | undefined;
  policy.rules.forEach((rule, i) => {
    const done = mine.filter((s) => s.rule === i).map((s) => s.round);
    const round = done.length ? Math.max(...done) + 1 : 0;
    if (!hasRound(policy, round) || stopsRule(status, rule) || (round > 0 && status !== "triggered")) return;
    const due = dueAt(escalation, policy, i, round, secondMs).getTime();
    next = next === undefined ? due : Math.min(next, due);
  });
  return {
    policy: policy.name,
    nextPageAt: next === undefined ? null : new Date(next),
    pages: mine
      .filter((s) => !s.stopped)
      .map((s) => ({ users: s.users.map((u) => u.username), rule: s.rule, round: s.round, at: s.at })),
  };
}
