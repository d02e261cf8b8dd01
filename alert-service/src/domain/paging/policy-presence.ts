import { type Clock, TtlCache } from "@tocsin/core";
import type { OncallDirectory } from "./ports.js";

/**
 * How long a project seen without an escalation policy is taken to have none: the bound on how
 * long a policy saved in settings-service goes unseen by the page-starts of new alerts (the same
 * bound as a silence written elsewhere, processing-runtime.ts). docs/oncall.md, "Projects without a policy".
 */
export const POLICY_ABSENCE_MAX_AGE_MS = 1000;

/** How often the runtime calls `refresh`: well inside the absence bound, so a busy project's entry never goes stale. */
export const POLICY_REFRESH_MS = 400;
/** A project asked about this long ago is no longer refreshed. */
const ASKED_WINDOW_MS = 10_000;
/** Projects refreshed per round at most (the most recently asked). */
const REFRESH_MAX = 200;

/**
 * What processing last learnt of each project's escalation policy, from the policy reads the
 * timer runner makes anyway (`observe` wraps the directory it reads through) and from `refresh`.
 * Paging's claim asks `knownAbsent` before it enqueues a page-start for a new alert: most projects
 * have no policy, and in a storm every new alert's page-start (a timer job, a policy read, a
 * second commit of its batch) would find none. Unknown or stale: the page-start is enqueued and
 * reads the policy fresh.
 */
export interface PolicyPresence {
  /** True when the project was read without a policy less than `POLICY_ABSENCE_MAX_AGE_MS` ago. */
  knownAbsent(projectId: number): boolean;
  /** The directory, with every policy read noted. */
  observe(directory: OncallDirectory): OncallDirectory;
  /**
   * Reads again the policies of the projects asked about in the last 10 s whose last read found
   * none (at most 200), so that their absence stays known while alerts keep coming: without it,
   * each time the entry went stale the alerts until the next page-start's read each paid a
   * page-start. Resolves when the reads did; a failed read leaves its project to go stale.
   */
  refresh(directory: OncallDirectory): Promise<void>;
}

export function createPolicyPresence(clock: Clock): PolicyPresence {
  const now = () => clock.now().getTime();
  const absent = new TtlCache<number, true>({ ttlMs: POLICY_ABSENCE_MAX_AGE_MS, now });
  /** Projects asked about whose last read found no policy: when last asked. */
  const asked = new Map<number, number>();
  const lastAbsent = new Set<number>();
  let refreshing = false;
  const presence: PolicyPresence = {
    knownAbsent(projectId) {
      // Moved to the end of the map (the most recent), at most once a second per project.
      const at = now();
      if (lastAbsent.has(projectId) && (asked.get(projectId) ?? 0) < at - 1000) {
        asked.delete(projectId);
        asked.set(projectId, at);
      }
      return absent.get(projectId) === true;
    },
    async refresh(directory) {
      if (refreshing) return;
      refreshing = true;
      try {
        const since = now() - ASKED_WINDOW_MS;
        for (const [projectId, at] of asked)
          if (at < since) {
            asked.delete(projectId);
            lastAbsent.delete(projectId);
          }
        const recent = [...asked.keys()].slice(-REFRESH_MAX);
        const observed = presence.observe(directory);
        await Promise.allSettled(recent.map((projectId) => observed.policy(projectId, { requestId: "policy-refresh" })));
      } finally {
        refreshing = false;
      }
    },
    observe: (directory) => ({
      async policy(projectId, ctx) {
        const startedAt = clock.now().getTime();
        const policy = await directory.policy(projectId, ctx);
        // Dated from when the read started: a policy saved while it was in flight may be missing.
        if (policy) {
          absent.delete(projectId);
          lastAbsent.delete(projectId);
          asked.delete(projectId);
        } else {
          absent.set(projectId, true, { notAfter: startedAt + POLICY_ABSENCE_MAX_AGE_MS });
          if (!lastAbsent.has(projectId)) {
            lastAbsent.add(projectId);
            asked.set(projectId, now());
          }
        }
        return policy;
      },
      oncall: (projectId, scheduleIid, at, ctx) => directory.oncall(projectId, scheduleIid, at, ctx),
    }),
  };
  return presence;
}
