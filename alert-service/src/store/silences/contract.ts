import { rejectionReason } from "@tocsin/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Silence } from "../../domain/silences/model.js";
import type { SilenceStore } from "../../domain/silences/ports.js";

const t0 = new Date("2026-11-21T10:00:00.000Z");
const hour = 3600_000;
export const silence = (id: string, over: Partial<Silence> = {}): Silence => ({
  id,
  projectId: 1,
  matchers: [
    { name: "alertname", value: "HighCPU", isRegex: false, isEqual: true },
    { name: "a.$b", value: "db-.*", isRegex: true, isEqual: false },
  ],
  startsAt: t0,
  endsAt: new Date(t0.getTime() + hour),
  createdBy: "ops",
  comment: "failover",
  updatedAt: t0,
  ...over,
});

/** One behavioural suite for every SilenceStore adapter. */
export function describeSilenceStoreContract(
  name: string,
  makeStore: () => Promise<{ store: SilenceStore; cleanup: () => Promise<void> }>,
) {
  describe(`SilenceStore contract: ${name}`, () => {
    let store: SilenceStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await makeStore());
    });
    afterEach(async () => {
      await cleanup();
    });

    it("stores a silence and reads back every field, within its project only", async () => {
      const s = silence("6f1c3d2e-0000-4000-8000-000000000001");
      await store.insert(s);
      expect(await store.get(1, s.id)).toEqual(s);
      expect(await store.get(2, s.id)).toBeUndefined();
      expect(await store.get(1, "nope")).toBeUndefined();
    });

    it("refuses a second silence with the same id (SILENCE_EXISTS)", async () => {
      await store.insert(silence("dup"));
      expect(await rejectionReason(store.insert(silence("dup", { projectId: 2 })))).toBe("SILENCE_EXISTS");
    });

    it("lists a project's silences by id, and only those ending after a time when asked", async () => {
      await store.insert(silence("c", { endsAt: new Date(t0.getTime() + 3 * hour) }));
      await store.insert(silence("a", { endsAt: new Date(t0.getTime() + hour) }));
      await store.insert(silence("b", { endsAt: new Date(t0.getTime() + 2 * hour) }));
      await store.insert(silence("x", { projectId: 2 }));
      expect((await store.list(1)).map((s) => s.id)).toEqual(["a", "b", "c"]);
      const later = await store.list(1, { endsAfter: new Date(t0.getTime() + hour) });
      expect(later.map((s) => s.id)).toEqual(["b", "c"]);
      expect(await store.list(3)).toEqual([]);
    });

    it("replaces a silence's fields by id and project", async () => {
      await store.insert(silence("s"));
      const changed = silence("s", {
        matchers: [{ name: "job", value: "node", isRegex: false, isEqual: true }],
        startsAt: new Date(t0.getTime() + 1000),
        endsAt: new Date(t0.getTime() + 2 * hour),
        createdBy: "someone",
        comment: "longer",
        updatedAt: new Date(t0.getTime() + 5000),
      });
      expect(await store.update(changed)).toBe(true);
      expect(await store.get(1, "s")).toEqual(changed);
      expect(await store.update({ ...changed, projectId: 2 })).toBe(false);
      expect(await store.update(silence("missing"))).toBe(false);
      expect(await store.get(1, "missing")).toBeUndefined();
    });

    it("records an alert's silenced_by, replaces it, clears it, and reads many at once", async () => {
      expect(await store.silencedBy([1, 2])).toEqual(new Map());
      await store.markSilenced(1, ["a", "b"], t0);
      await store.markSilenced(2, ["c"], t0);
      await store.markSilenced(1, ["b"], new Date(t0.getTime() + 1000));
      expect(await store.silencedBy([1, 2, 3])).toEqual(
        new Map([
          [1, ["b"]],
          [2, ["c"]],
        ]),
      );
      await store.markSilenced(2, [], t0);
      await store.markSilenced(9, [], t0);
      expect(await store.silencedBy([1, 2])).toEqual(new Map([[1, ["b"]]]));
      expect(await store.silencedBy([])).toEqual(new Map());
      await store.markSilenced(3, ["b", "bb"], t0);
      expect((await store.alertsHeldBy("b")).sort()).toEqual([1, 3]);
      expect(await store.alertsHeldBy("bb")).toEqual([3]);
      expect(await store.alertsHeldBy("c")).toEqual([]);
    });

    it("answers ping", async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
