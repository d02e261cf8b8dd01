import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SettingChange, SettingKey, SettingsStore } from "../domain/ports.js";

export interface StoreFixture {
  store: SettingsStore;
  /** Another store on the same data, as a second replica would open it (when the adapter has one). */
  replica?(): Promise<SettingsStore>;
  cleanup(): Promise<void>;
}

const at = new Date("2026-11-21T10:00:00.000Z");
const later = new Date("2026-11-21T11:00:00.000Z");
const change = (c: Partial<SettingChange> = {}): SettingChange => ({ defaultLevel: "global", events: {}, at, ...c });
const project = (userId: number, id = 10): SettingKey => ({ userId, sourceType: "project", sourceId: id });
const group = (userId: number, id: number): SettingKey => ({ userId, sourceType: "group", sourceId: id });
const global = (userId: number): SettingKey => ({ userId, sourceType: "global", sourceId: 0 });

/** One behavioural suite that every SettingsStore adapter passes unchanged. */
export function describeSettingsStoreContract(name: string, makeStore: () => Promise<StoreFixture>) {
  describe(`SettingsStore contract: ${name}`, () => {
    let fx: StoreFixture;
    beforeEach(async () => {
      fx = await makeStore();
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    it("answers undefined for a setting never saved, and pings", async () => {
      await fx.store.ping();
      expect(await fx.store.get(project(1))).toBeUndefined();
    });

    it("creates on first write with the default level, then reads it back", async () => {
      const created = await fx.store.apply(project(1), change({ events: { new_note: true } }));
      expect(created).toMatchObject({
        userId: 1,
        sourceType: "project",
        sourceId: 10,
        level: "global",
        events: { new_note: true },
      });
      expect(created.notificationEmail).toBeUndefined();
      const read = await fx.store.get(project(1));
      expect(read).toMatchObject({ level: "global", events: { new_note: true } });
      expect(read?.createdAt.toISOString()).toBe(at.toISOString());
    });

    it("merges partial changes: unset fields and events keep their values", async () => {
      await fx.store.apply(
        global(1),
        change({
          defaultLevel: "participating",
          notificationEmail: "a@example.com",
          events: { new_note: true, new_issue: true },
        }),
      );
      await fx.store.apply(global(1), change({ level: "custom", events: { new_issue: false, close_issue: true }, at: later }));
      const read = await fx.store.get(global(1));
      expect(read).toMatchObject({
        level: "custom",
        notificationEmail: "a@example.com",
        events: { new_note: true, new_issue: false, close_issue: true },
      });
      expect(read?.createdAt.toISOString()).toBe(at.toISOString());
      expect(read?.updatedAt.toISOString()).toBe(later.toISOString());
      await fx.store.apply(global(1), change({ defaultLevel: "participating" }));
      expect((await fx.store.get(global(1)))?.level).toBe("custom");
    });

    it("keeps one setting per (user, source), even under concurrent first writes", async () => {
      const writes = ["new_note", "new_issue", "close_issue", "reopen_issue", "issue_due", "moved_project"] as const;
      await Promise.all(writes.map((e) => fx.store.apply(project(2), change({ events: { [e]: true } }))));
      const all = await fx.store.listForUsers([2], 10, []);
      expect(all).toHaveLength(1);
      for (const e of writes) expect(all[0]?.events[e]).toBe(true);
    });

    it("a replica racing the first write of a setting retries on the unique violation instead of failing", async () => {
      // Stores do not share the in-process lock, so several upserts of one key may insert: the
      // unique index rejects all but one (FerretDB 1.24 answers such an upsert with 11000, an
      // update that moves a document onto a taken key with "UNIQUE constraint failed"; both are
      // duplicates), and each rejected one must be retried as an update. Without the retry this
      // case fails on FerretDB.
      const stores = [fx.store];
      for (let i = 0; i < 5 && fx.replica; i++) stores.push(await fx.replica());
      const keys = Array.from({ length: 20 }, (_, i) => project(100 + i));
      await Promise.all(keys.flatMap((k) => stores.map((s) => s.apply(k, change({ level: "watch" })))));
      for (const k of keys) {
        const found = await fx.store.listForUsers([k.userId], 10, []);
        expect(found.map((s) => s.level)).toEqual(["watch"]);
      }
    });

    it("keeps users, source types and source ids apart", async () => {
      await fx.store.apply(project(1, 10), change({ level: "watch" }));
      await fx.store.apply(project(2, 10), change({ level: "disabled" }));
      await fx.store.apply(project(1, 11), change({ level: "mention" }));
      await fx.store.apply(group(1, 10), change({ level: "custom" }));
      expect((await fx.store.get(project(1, 10)))?.level).toBe("watch");
      expect((await fx.store.get(project(2, 10)))?.level).toBe("disabled");
      expect((await fx.store.get(project(1, 11)))?.level).toBe("mention");
      expect((await fx.store.get(group(1, 10)))?.level).toBe("custom");
      expect(await fx.store.get(group(2, 10))).toBeUndefined();
    });

    it("lists in one read the global, project and ancestor-group settings of many users", async () => {
      for (const u of [1, 2, 3]) await fx.store.apply(global(u), change({ defaultLevel: "participating" }));
      await fx.store.apply(project(1, 10), change({ level: "watch" }));
      await fx.store.apply(project(1, 99), change({ level: "watch" })); // another project
      await fx.store.apply(group(2, 5), change({ level: "mention" }));
      await fx.store.apply(group(2, 6), change({ level: "custom" }));
      await fx.store.apply(group(2, 7), change({ level: "custom" })); // not an ancestor
      await fx.store.apply(global(4), change({ defaultLevel: "participating" })); // not asked for
      const found = await fx.store.listForUsers([1, 2, 3], 10, [5, 6]);
      const keys = found.map((s) => `${s.userId}:${s.sourceType}:${s.sourceId}`).sort();
      expect(keys).toEqual(["1:global:0", "1:project:10", "2:global:0", "2:group:5", "2:group:6", "3:global:0"]);
      expect(await fx.store.listForUsers([], 10, [5])).toEqual([]);
      expect(await fx.store.listForUsers([2], 10, [])).toHaveLength(1);
    });

    it("reads a thousand users' settings in one call", async () => {
      const ids = Array.from({ length: 1000 }, (_, i) => i + 1);
      for (const u of ids.filter((u) => u % 10 === 0)) await fx.store.apply(project(u, 10), change({ level: "watch" }));
      const found = await fx.store.listForUsers(ids, 10, [1, 2, 3, 4, 5]);
      expect(found).toHaveLength(100);
    });
  });
}
