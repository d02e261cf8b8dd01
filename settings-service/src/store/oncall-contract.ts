import { AppError } from "@tocsin/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OncallStore } from "../domain/oncall/ports.js";
import type { PolicyFields, RotationFields } from "../domain/oncall/types.js";

export interface OncallStoreFixture {
  store: OncallStore;
  cleanup(): Promise<void>;
}

/** The AppError reason a promise rejects with. */
async function rejectionReason(p: Promise<unknown>): Promise<string | undefined> {
  return p.then(
    () => undefined,
    (err: unknown) => (AppError.is(err) ? err.reason : String(err)),
  );
}

const schedule = (name: string) => ({ name, description: "", timezone: "Europe/London" });
const rotation = (name: string, extra: Partial<RotationFields> = {}): RotationFields => ({
  name,
  startsAt: "2026-03-27T09:00",
  length: 1,
  unit: "days",
  participantIds: [3, 1, 2],
  ...extra,
});
const policy = (name: string): PolicyFields => ({
  name,
  description: "",
  rules: [
    { status: "acknowledged", elapsedTimeSeconds: 0, scheduleIid: 1 },
    { status: "resolved", elapsedTimeSeconds: 300, userId: 9 },
  ],
  repeatEverySeconds: null,
  maxRepeats: 0,
});

/** One behavioural suite for every OncallStore adapter (SQLite and MongoDB/FerretDB). */
export function describeOncallStoreContract(name: string, setup: () => Promise<OncallStoreFixture>): void {
  describe(`OncallStore contract: ${name}`, () => {
    let fixture: OncallStoreFixture;
    let store: OncallStore;
    beforeEach(async () => {
      fixture = await setup();
      store = fixture.store;
    });
    afterEach(() => fixture.cleanup());

    it("numbers schedules per project from 1, never reusing an iid, names unique per project", async () => {
      expect((await store.createSchedule(10, schedule("Primary"))).iid).toBe(1);
      expect((await store.createSchedule(10, schedule("Secondary"))).iid).toBe(2);
      expect((await store.createSchedule(11, schedule("Primary"))).iid).toBe(1);
      expect(await rejectionReason(store.createSchedule(10, schedule("Primary")))).toBe("ONCALL_NAME_TAKEN");
      expect(await store.deleteSchedule(10, 2)).toBe(true);
      expect(await store.deleteSchedule(10, 2)).toBe(false);
      // Never reused; a refused create may leave a gap.
      const third = (await store.createSchedule(10, schedule("Third"))).iid;
      expect(third).toBeGreaterThan(2);
      expect((await store.listSchedules(10)).map((s) => [s.iid, s.name])).toEqual([
        [1, "Primary"],
        [third, "Third"],
      ]);
      const updated = await store.updateSchedule(10, third, { name: "Renamed", description: "d", timezone: "America/Chicago" });
      expect(updated).toEqual({ projectId: 10, iid: third, name: "Renamed", description: "d", timezone: "America/Chicago" });
      expect(await store.getSchedule(10, third)).toEqual(updated);
      expect(await rejectionReason(store.updateSchedule(10, third, schedule("Primary")))).toBe("ONCALL_NAME_TAKEN");
      expect(await store.updateSchedule(10, 99, schedule("X"))).toBeUndefined();
      expect(await store.getSchedule(11, third)).toBeUndefined();
    });

    it("keeps rotations per schedule with names unique in the schedule and optional fields absent", async () => {
      await store.createSchedule(10, schedule("A"));
      await store.createSchedule(10, schedule("B"));
      const plain = await store.createRotation(10, 1, rotation("Days"));
      expect(plain).toEqual({ id: plain.id, projectId: 10, scheduleIid: 1, ...rotation("Days") });
      expect(await store.getRotation(10, 1, plain.id)).toEqual(plain);
      expect("endsAt" in ((await store.getRotation(10, 1, plain.id)) ?? {})).toBe(false);
      const full = rotation("Nights", { endsAt: "2026-04-01T09:00", activePeriod: { startTime: "22:00", endTime: "06:00" } });
      const second = await store.createRotation(10, 1, full);
      await store.createRotation(10, 2, rotation("Days"));
      expect(await rejectionReason(store.createRotation(10, 1, rotation("Days")))).toBe("ONCALL_NAME_TAKEN");
      expect((await store.listRotations(10, 1)).map((r) => r.name)).toEqual(["Days", "Nights"]);
      expect(await store.getRotation(10, 2, second.id)).toBeUndefined();
      const changed = await store.updateRotation(10, 1, second.id, rotation("Evenings", { participantIds: [5] }));
      expect(await store.getRotation(10, 1, second.id)).toEqual(changed);
      expect(changed?.participantIds).toEqual([5]);
      expect(await rejectionReason(store.updateRotation(10, 1, second.id, rotation("Days")))).toBe("ONCALL_NAME_TAKEN");
      expect(await store.deleteRotation(10, 1, plain.id)).toBe(true);
      expect(await store.deleteRotation(10, 1, plain.id)).toBe(false);
      expect((await store.listRotations(10, 1)).map((r) => r.name)).toEqual(["Evenings"]);
    });

    it("lists overrides that meet a range, by start; deleting a schedule deletes its rotations and overrides", async () => {
      await store.createSchedule(10, schedule("A"));
      const at = (h: number) => new Date(Date.UTC(2026, 2, 28, h));
      const late = await store.createOverride(10, 1, { userId: 4, startsAt: at(12), endsAt: at(18) });
      const early = await store.createOverride(10, 1, { userId: 5, startsAt: at(2), endsAt: at(6) });
      expect(late).toEqual({ id: late.id, projectId: 10, scheduleIid: 1, userId: 4, startsAt: at(12), endsAt: at(18) });
      expect((await store.listOverrides(10, 1)).map((o) => o.id)).toEqual([early.id, late.id]);
      expect((await store.listOverrides(10, 1, { from: at(6), to: at(12) })).map((o) => o.id)).toEqual([]);
      expect((await store.listOverrides(10, 1, { from: at(5), to: at(13) })).map((o) => o.id)).toEqual([early.id, late.id]);
      expect((await store.listOverrides(10, 1, { from: at(17), to: at(20) }))[0]).toEqual(late);
      await store.createRotation(10, 1, rotation("Days"));
      expect(await store.deleteOverride(10, 1, early.id)).toBe(true);
      expect(await store.deleteOverride(10, 1, early.id)).toBe(false);
      expect(await store.deleteSchedule(10, 1)).toBe(true);
      expect(await store.listRotations(10, 1)).toEqual([]);
      expect(await store.listOverrides(10, 1)).toEqual([]);
    });

    it("holds at most one escalation policy per project", async () => {
      const created = await store.createPolicy(10, policy("P"));
      expect(created).toEqual({ id: created.id, projectId: 10, ...policy("P") });
      expect(await store.getPolicy(10)).toEqual(created);
      expect(await rejectionReason(store.createPolicy(10, policy("Q")))).toBe("ESCALATION_POLICY_EXISTS");
      const other = await store.createPolicy(11, policy("Q"));
      expect(other.id).not.toBe(created.id);
      const changed = { ...policy("P2"), repeatEverySeconds: 600, maxRepeats: 3 };
      expect(await store.updatePolicy(10, created.id, changed)).toEqual({ id: created.id, projectId: 10, ...changed });
      expect(await store.getPolicy(10)).toEqual({ id: created.id, projectId: 10, ...changed });
      expect(await store.updatePolicy(10, other.id, changed)).toBeUndefined();
      expect(await store.deletePolicy(10, created.id)).toBe(true);
      expect(await store.getPolicy(10)).toBeUndefined();
      expect((await store.createPolicy(10, policy("R"))).name).toBe("R");
    });
  });
}
