import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Escalation, PolicySnapshot } from "../../domain/paging/model.js";
import type { EscalationStore } from "../../domain/paging/ports.js";

export interface EscalationStoreSetup {
  store: EscalationStore;
  cleanup(): Promise<void>;
}

const t0 = new Date("2026-01-01T00:00:00.000Z");
const policy: PolicySnapshot = {
  id: 1,
  name: "Primary",
  rules: [{ status: "acknowledged", elapsedSeconds: 0, schedule: { iid: 1, name: "Ops" } }],
  repeatEverySeconds: null,
  maxRepeats: 0,
};
const escalation = (triggerOp: string, at = t0, p: PolicySnapshot | null = policy): Escalation => ({
  alertId: 7,
  triggerOp,
  triggeredAt: at,
  policy: p,
});

/** The behaviour every EscalationStore adapter shares (run against SQLite and FerretDB). */
export function describeEscalationStoreContract(name: string, setup: () => Promise<EscalationStoreSetup>) {
  describe(`EscalationStore contract: ${name}`, () => {
    let s: EscalationStoreSetup;
    beforeEach(async () => {
      s = await setup();
    });
    afterEach(async () => {
      await s.cleanup();
    });

    it("keeps the first escalation of a trigger and replaces it on a new trigger", async () => {
      expect(await s.store.get(7)).toBeUndefined();
      expect(await s.store.start(escalation("op-1"))).toEqual(escalation("op-1"));
      const later = new Date(t0.getTime() + 60_000);
      expect(await s.store.start(escalation("op-1", later, null))).toEqual(escalation("op-1"));
      expect(await s.store.start(escalation("op-2", later, null))).toEqual(escalation("op-2", later, null));
      expect(await s.store.get(7)).toEqual(escalation("op-2", later, null));
      // A start of an older trigger that arrives late leaves the newer one.
      expect(await s.store.start(escalation("op-0", t0))).toEqual(escalation("op-2", later, null));
    });

    it("records a step once per key and lists an alert's steps in time order", async () => {
      const step = (key: string, ms: number, users = [{ id: 3, username: "ann" }]) => ({
        key,
        alertId: 7,
        triggerOp: "op-1",
        rule: 0,
        round: ms / 1000,
        users,
        stopped: users.length === 0,
        at: new Date(t0.getTime() + ms),
      });
      expect(await s.store.recordStep(step("page:7:op-1:0:1", 1000))).toEqual(step("page:7:op-1:0:1", 1000));
      expect(await s.store.recordStep(step("page:7:op-1:0:0", 0, []))).toEqual(step("page:7:op-1:0:0", 0, []));
      // A second run of the same (rule, round) gets the first record back.
      expect(await s.store.recordStep({ ...step("page:7:op-1:0:1", 5000), users: [] })).toEqual(step("page:7:op-1:0:1", 1000));
      expect(await s.store.getStep("page:7:op-1:0:0")).toEqual(step("page:7:op-1:0:0", 0, []));
      expect(await s.store.getStep("page:7:op-1:9:9")).toBeUndefined();
      expect((await s.store.steps(7)).map((x) => x.key)).toEqual(["page:7:op-1:0:0", "page:7:op-1:0:1"]);
      expect(await s.store.steps(8)).toEqual([]);
    });
  });
}
