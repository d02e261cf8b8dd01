import type { Clock, Logger } from "@tocsin/core";
import type { AlertsStores } from "../alerts/ports.js";
import { alertEvent, type Claim, type Reactions } from "../alerts/reactions.js";
import { dueAt, hasRound, type PageStep, type PolicyRule, pageKey, stopsRule } from "./model.js";
import type {
  EscalationStore,
  OncallDirectory,
  PageRuleJob,
  PageStartJob,
  PagingJobs,
  ProjectMembers,
  ScheduleOncall,
} from "./ports.js";

/** What the timer runner asks other services, off the alerts' lanes (its calls may run side by side). */
export interface PagingLookups {
  directory: OncallDirectory;
  members: ProjectMembers;
  escalations: Pick<EscalationStore, "get">;
}

export interface PagingDeps {
  stores: AlertsStores;
  escalations: EscalationStore;
  jobs: PagingJobs;
  reactions: Reactions;
  clock: Clock;
  /** Length of one policy second (1000; PAGING_SECOND_MS shortens it in tests). */
  secondMs: number;
}

const delayTo = (clock: Clock, due: Date) => Math.max(0, due.getTime() - clock.now().getTime());

/**
 * The timer runner's side of `page-start`: the project's policy, read now (settings-service).
 * Undefined when there is nothing to do in the lane: the project has no policy and the alert has
 * never escalated (no earlier trigger to stop). Most projects have no policy, and in a storm this
 * saves each new alert a lane job and a write.
 */
export async function withPolicy(deps: PagingLookups, job: PageStartJob): Promise<PageStartJob | undefined> {
  const policy = (await deps.directory.policy(job.projectId, { requestId: job.requestId })) ?? null;
  if (!policy && !(await deps.escalations.get(job.alertId))) return undefined;
  return { ...job, policy };
}

/** The timer runner's side of a due rule: whom it pages now (settings-service, auth-service). */
export async function withOncall(deps: PagingLookups, job: PageRuleJob, at: Date): Promise<PageRuleJob> {
  const rule = job.policy.rules[job.rule];
  return rule ? { ...job, oncall: await targetsOf(deps, job, rule, at) } : job;
}

/**
 * The `page-start` job (in the alert's lane, with the policy its timer read): records the
 * escalation of this trigger with the policy's snapshot and schedules round 0 of every rule.
 * Idempotent: the same trigger keeps its first snapshot, and the rule jobs are keyed.
 */
export async function pageStartJob(deps: PagingDeps, job: PageStartJob, logger?: Logger): Promise<void> {
  const { policy: read, ...start } = job;
  const policy = read ?? null;
  const escalation = await deps.escalations.start({
    alertId: job.alertId,
    triggerOp: job.triggerOp,
    triggeredAt: new Date(job.triggeredAt),
    policy,
  });
  if (!escalation.policy || escalation.triggerOp !== job.triggerOp) return;
  const snapshot = escalation.policy;
  await deps.jobs.enqueueRules(
    snapshot.rules.map((_, rule) => ({
      job: { ...start, triggeredAt: escalation.triggeredAt.toISOString(), rule, round: 0, policy: snapshot },
      delayMs: delayTo(deps.clock, dueAt(escalation, snapshot, rule, 0, deps.secondMs)),
    })),
  );
  logger?.debug({ alertId: job.alertId, rules: snapshot.rules.length }, "escalation started");
}

/** Whom a rule pages now: the schedule's on-call users, or its user while an active member. */
async function targetsOf(deps: PagingLookups, job: PageRuleJob, rule: PolicyRule, at: Date): Promise<ScheduleOncall> {
  const ctx = { requestId: job.requestId };
  if (rule.schedule)
    return (await deps.directory.oncall(job.projectId, rule.schedule.iid, at, ctx)) ?? { users: [], skipped: [] };
  const user = rule.user;
  if (!user) return { users: [], skipped: [] };
  const member = (await deps.members.members(job.projectId, ctx)).find((m) => m.id === user.id);
  return member && !member.blocked ? { users: [user], skipped: [] } : { users: [], skipped: [user] };
}

function pageNote(step: PageStep, policyName: string, rule: PolicyRule, status: string, oncall?: ScheduleOncall): string {
  const target = rule.schedule ? `schedule ${rule.schedule.name}` : `@${rule.user?.username ?? "?"}`;
  if (step.stopped) return `did not page ${target} via escalation policy ${policyName}: the alert is ${status}`;
  if (step.users.length) return `paged ${step.users.map((u) => `@${u.username}`).join(", ")} via escalation policy ${policyName}`;
  const skipped = oncall?.skipped.length ? ` (skipped: ${oncall.skipped.map((u) => `@${u.username}`).join(", ")})` : "";
  const why = rule.schedule
    ? `nobody is on call in schedule ${rule.schedule.name}`
    : `@${rule.user?.username ?? "?"} is blocked or no longer a member`;
  return `paged nobody via escalation policy ${policyName}: ${why}${skipped}`;
}

/**
 * The `page-rule` job of one (alert, trigger, rule, round), run in the alert's lane when due:
 * nothing when a newer trigger replaced this one; when the alert's status stops the rule, a step
 * that says so (no page); else it pages whoever is on call. The step is recorded once per key
 * with its activity note and (when someone was paged) the `alert.paged` event; then the page
 * e-mails and, while the alert stays triggered, the rule's next round are queued.
 * A re-run finds the step recorded and queues the same keyed jobs again.
 */
export async function pageRuleJob(deps: PagingDeps, job: PageRuleJob, logger?: Logger): Promise<void> {
  const { alerts } = deps.stores;
  const alert = await alerts.getById(job.alertId);
  const current = await deps.escalations.get(job.alertId);
  const rule = job.policy.rules[job.rule];
  if (!alert || !rule || current?.triggerOp !== job.triggerOp) return;
  const key = pageKey(job.alertId, job.triggerOp, job.rule, job.round);
  let step = await deps.escalations.getStep(key);
  const claims: Claim[] = [];
  if (!step) {
    const now = deps.clock.now();
    const stopped = stopsRule(alert.status, rule);
    const oncall = stopped ? undefined : (job.oncall ?? { users: [], skipped: [] });
    const fresh: PageStep = {
      key,
      alertId: alert.id,
      triggerOp: job.triggerOp,
      rule: job.rule,
      round: job.round,
      users: oncall?.users ?? [],
      stopped,
      at: now,
    };
    const done = await deps.stores.batch(async () => {
      const recorded = await deps.escalations.recordStep(fresh);
      await alerts.addActivity(alert.id, key, pageNote(recorded, job.policy.name, rule, alert.status, oncall), recorded.at);
      const event = alertEvent("alert.paged", key, {
        projectId: alert.projectId,
        alertId: alert.id,
        requestId: job.requestId,
        at: recorded.at,
        by: "paging",
      });
      return { recorded, claims: recorded.users.length ? await deps.reactions.claim(event) : [] };
    });
    step = done.recorded;
    claims.push(...done.claims);
  }
  if (step.users.length) {
    await deps.jobs.enqueuePageMail({
      requestId: job.requestId,
      projectId: job.projectId,
      alertId: job.alertId,
      key,
      policyName: job.policy.name,
      users: step.users,
    });
  }
  if (claims.length) await deps.reactions.enqueue(claims);
  const { oncall: _looked, ...next } = job;
  const round = job.round + 1;
  if (alert.status === "triggered" && hasRound(job.policy, round)) {
    const due = dueAt({ triggeredAt: new Date(job.triggeredAt) }, job.policy, job.rule, round, deps.secondMs);
    await deps.jobs.enqueueRules([{ job: { ...next, round }, delayMs: delayTo(deps.clock, due) }]);
  }
  logger?.debug({ alertId: job.alertId, key, users: step.users.length }, "escalation rule ran");
}
