import { FakeClock } from "@tocsin/testing";
import { describe, expect, it } from "vitest";
import type { Alert } from "../alerts/model.js";
import { type AlertEventCause, type AlertEventKind, alertEvent } from "../alerts/reactions.js";
import { createPolicyPresence, POLICY_ABSENCE_MAX_AGE_MS, POLICY_REFRESH_MS } from "./policy-presence.js";
import type { OncallDirectory, PageStartJob } from "./ports.js";
import { pagingReactor } from "./reactor.js";

const policy = { id: 1, name: "P", rules: [], repeatEverySeconds: null, maxRepeats: 0 };

/** Project 1 has a policy once `withPolicy` holds it; project 2 never has one. */
function directory(withPolicy: Set<number>): OncallDirectory & { reads: number } {
  const d = {
    reads: 0,
    async policy(projectId: number) {
      d.reads++;
      return withPolicy.has(projectId) ? policy : undefined;
    },
    oncall: async () => undefined,
  };
  return d;
}

describe("PolicyPresence", () => {
  it("knows a project has no policy from a read, for at most a second, and forgets it when a read finds one", async () => {
    const clock = new FakeClock();
    const presence = createPolicyPresence(clock);
    const has = new Set<number>();
    const observed = presence.observe(directory(has));
    expect(presence.knownAbsent(1)).toBe(false); // never read: unknown

    expect(await observed.policy(1, { requestId: "r" })).toBeUndefined();
    expect(presence.knownAbsent(1)).toBe(true);
    expect(presence.knownAbsent(2)).toBe(false);

    clock.advance(POLICY_ABSENCE_MAX_AGE_MS);
    expect(presence.knownAbsent(1)).toBe(false); // stale: ask again

    await observed.policy(1, { requestId: "r" });
    has.add(1); // a policy is saved
    expect(await observed.policy(1, { requestId: "r" })).toEqual(policy);
    expect(presence.knownAbsent(1)).toBe(false);
  });
});

describe("PolicyPresence.refresh", () => {
  it("keeps a project asked about known without a policy past the bound, sees a policy saved on its next round, and forgets idle projects", async () => {
    const clock = new FakeClock();
    const presence = createPolicyPresence(clock);
    const has = new Set<number>();
    const dir = directory(has);
    await presence.refresh(dir);
    expect(dir.reads).toBe(0); // nothing asked about: no read

    await presence.observe(dir).policy(1, { requestId: "r" });
    await presence.observe(dir).policy(2, { requestId: "r" });
    // Alerts of project 1 keep coming; project 2 has none.
    for (let i = 0; i < 30; i++) {
      expect(presence.knownAbsent(1)).toBe(true);
      clock.advance(POLICY_REFRESH_MS);
      await presence.refresh(dir);
    }
    expect(presence.knownAbsent(1)).toBe(true); // 12 s later, still known
    expect(presence.knownAbsent(2)).toBe(false); // not asked about for 10 s: left to go stale
    const reads = dir.reads;
    await presence.refresh(dir);
    expect(dir.reads).toBe(reads + 1); // project 1 only

    has.add(1); // a policy is saved: seen by the next round
    await presence.refresh(dir);
    expect(presence.knownAbsent(1)).toBe(false);
    await presence.refresh(dir);
    expect(dir.reads).toBe(reads + 2); // a project with a policy is not refreshed
  });

  it("lets the entry go stale when the reads fail", async () => {
    const clock = new FakeClock();
    const presence = createPolicyPresence(clock);
    let fail = false;
    const dir = {
      policy: async () => {
        if (fail) throw new Error("settings-service unavailable");
        return undefined;
      },
      oncall: async () => undefined,
    };
    await presence.observe(dir).policy(1, { requestId: "r" });
    expect(presence.knownAbsent(1)).toBe(true);
    fail = true;
    clock.advance(POLICY_REFRESH_MS);
    await presence.refresh(dir);
    expect(presence.knownAbsent(1)).toBe(true);
    clock.advance(POLICY_ABSENCE_MAX_AGE_MS - POLICY_REFRESH_MS);
    await presence.refresh(dir);
    expect(presence.knownAbsent(1)).toBe(false);
  });
});

describe("pagingReactor with PolicyPresence", () => {
  const alert = { id: 7, projectId: 2, fingerprint: "fp" } as Alert;
  const event = (kind: AlertEventKind, by: AlertEventCause) =>
    alertEvent(kind, "op-1", { projectId: 2, alertId: 7, requestId: "r", at: new Date("2026-11-21T10:00:00Z"), by });

  async function setup() {
    const clock = new FakeClock();
    const presence = createPolicyPresence(clock);
    let reads = 0;
    const reactor = pagingReactor(
      {
        getById: async () => {
          reads++;
          return alert;
        },
      },
      { enqueueStarts: async () => {}, enqueueRules: async () => {}, enqueuePageMail: async () => {} },
      presence,
    );
    const ctx = { settings: async () => ({}) as never, alert };
    return { clock, presence, reactor, ctx, reads: () => reads };
  }

  it("enqueues a new alert's page-start until the project is known to have no policy, then none (for a second)", async () => {
    const { clock, presence, reactor, ctx, reads } = await setup();
    const claim = (await reactor.claim(event("alert.triggered", "processing"), ctx)) as PageStartJob;
    expect(claim).toMatchObject({ alertId: 7, projectId: 2, laneKey: "2:fp", triggerOp: "op-1" });
    expect(reads()).toBe(0); // the alert came with the event

    await presence.observe(directory(new Set())).policy(2, { requestId: "r" });
    expect(await reactor.claim(event("alert.triggered", "processing"), ctx)).toBeUndefined();

    clock.advance(POLICY_ABSENCE_MAX_AGE_MS);
    expect(await reactor.claim(event("alert.triggered", "processing"), ctx)).toBeDefined();
  });

  it("still claims a trigger that may have an earlier escalation to stop (a status change, an unsilence)", async () => {
    const { presence, reactor, ctx, reads } = await setup();
    await presence.observe(directory(new Set())).policy(2, { requestId: "r" });
    expect(await reactor.claim(event("alert.triggered", "status-change"), { settings: ctx.settings })).toBeDefined();
    expect(reads()).toBe(1); // no alert in the context: read
    expect(await reactor.claim(event("alert.unsilenced", "unsilence"), ctx)).toBeDefined();
  });
});
