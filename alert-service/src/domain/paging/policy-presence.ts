import { type Clock, TtlCache } from "@tocsin/core";
import type { OncallDirectory } from "./ports.js";

/**
 * How long a project seen without an escalation policy is taken to have none: the bound on how
 * long a policy saved in settings-service goes unseen by the page-starts of new alerts (the same
 * bound as a silence written elsewhere, processing-runtime.ts). docs/oncall.md, "Projects without a policy".
 */
export const POLICY_ABSENCE_MAX_AGE_MS = 1000;

/**
 * What processing last learnt of each project's escalation policy, from the policy reads the
 * timer runner makes anyway (`observe` wraps the directory it reads through). Paging's claim asks
 * `knownAbsent` before it enqueues a page-start for a new alert: most projects have no policy,
 * and in a storm every new alert's page-start (a timer job, a policy read, a second commit of its
 * batch) would find none. Unknown or stale: the page-start is enqueued and reads the policy fresh.
 */
export interface PolicyPresence {
  /** True when the project was read without a policy less than `POLICY_ABSENCE_MAX_AGE_MS` ago. */
  knownAbsent(projectId: number): boolean;
  /** The directory, with every policy read noted. */
  observe(directory: OncallDirectory): OncallDirectory;
}

export function createPolicyPresence(clock: Clock): PolicyPresence {
  const absent = new TtlCache<number, true>({ ttlMs: POLICY_ABSENCE_MAX_AGE_MS, now: () => clock.now().getTime() });
  return {
    knownAbsent: (projectId) => absent.get(projectId) === true,
    observe: (directory) => ({
      async policy(projectId, ctx) {
        const startedAt = clock.now().getTime();
        const policy = await directory.policy(projectId, ctx);
        // Dated from when the read started: a policy saved while it was in flight may be missing.
        if (policy) absent.delete(projectId);
        else absent.set(projectId, true, { notAfter: startedAt + POLICY_ABSENCE_MAX_AGE_MS });
        return policy;
      },
      oncall: (projectId, scheduleIid, at, ctx) => directory.oncall(projectId, scheduleIid, at, ctx),
    }),
  };
}
