import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MailStore } from "../../domain/mail/ports.js";

export interface MailStoreSetup {
  store: MailStore;
  cleanup(): Promise<void>;
}

const WINDOW_MS = 600_000;
const t0 = new Date("2026-01-01T00:00:00Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

/** The behaviour every MailStore adapter shares (run against SQLite and FerretDB). */
export function describeMailStoreContract(name: string, setup: () => Promise<MailStoreSetup>) {
  describe(`MailStore contract: ${name}`, () => {
    let s: MailStoreSetup;
    beforeEach(async () => {
      s = await setup();
    });
    afterEach(async () => {
      await s.cleanup();
    });

    it("ranks a project's notifications within a window that starts with the first", async () => {
      expect(await s.store.claimSlot(1, "10:triggered", at(0), WINDOW_MS)).toEqual({ windowStart: at(0), seq: 1 });
      expect(await s.store.claimSlot(1, "11:triggered", at(1000), WINDOW_MS)).toEqual({ windowStart: at(0), seq: 2 });
      expect(await s.store.claimSlot(2, "12:triggered", at(2000), WINDOW_MS)).toEqual({ windowStart: at(2000), seq: 1 });
      expect(await s.store.claimSlot(1, "13:triggered", at(WINDOW_MS), WINDOW_MS)).toEqual({
        windowStart: at(WINDOW_MS),
        seq: 1,
      });
    });

    it("gives a repeated claim the slot it first got", async () => {
      await s.store.claimSlot(1, "10:triggered", at(0), WINDOW_MS);
      await s.store.claimSlot(1, "11:triggered", at(1), WINDOW_MS);
      expect(await s.store.claimSlot(1, "10:triggered", at(WINDOW_MS * 3), WINDOW_MS)).toEqual({ windowStart: at(0), seq: 1 });
      expect(await s.store.claimSlot(1, "12:triggered", at(2), WINDOW_MS)).toEqual({ windowStart: at(0), seq: 3 });
    });

    it("counts concurrent claims exactly", async () => {
      const slots = await Promise.all(
        Array.from({ length: 20 }, (_, i) => s.store.claimSlot(7, `${i}:resolved`, at(i), WINDOW_MS)),
      );
      expect(slots.map((x) => x.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });

    it("lists the overflow of a window by rank", async () => {
      for (let i = 1; i <= 5; i++) await s.store.claimSlot(3, `${i}:triggered`, at(i), WINDOW_MS);
      await s.store.claimSlot(3, "99:triggered", at(WINDOW_MS + 10), WINDOW_MS);
      expect(await s.store.overflow(3, at(1), 2)).toEqual(["3:triggered", "4:triggered", "5:triggered"]);
      expect(await s.store.overflow(3, at(1), 5)).toEqual([]);
    });

    it("records a delivery once", async () => {
      expect(await s.store.delivered("10:triggered:5")).toBe(false);
      await s.store.recordDelivery("10:triggered:5", "m1@x", at(0));
      await s.store.recordDelivery("10:triggered:5", "m1@x", at(1));
      expect(await s.store.delivered("10:triggered:5")).toBe(true);
      expect(await s.store.delivered("10:resolved:5")).toBe(false);
    });
  });
}
