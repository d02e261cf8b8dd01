import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EVENT_NAMES } from "../domain/events.js";
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

    it("two replicas writing different fields of one setting at once lose none of them", async () => {
      // Each replica has its own connection (and would have its own in-process lock): only the
      // store can keep one write from clobbering the other. FerretDB 1.x applies an update as an
      // unlocked read-modify-write of the whole document, so this fails on a one-document-per-
      // setting layout there (see docs/architecture.md, "Notification settings across replicas").
      const other = fx.replica ? await fx.replica() : fx.store;
      for (let round = 0; round < 3; round++) {
        const key = project(300 + round);
        const half = EVENT_NAMES.length / 2;
        await Promise.all([
          ...EVENT_NAMES.slice(0, half).map((e) => fx.store.apply(key, change({ events: { [e]: true } }))),
          ...EVENT_NAMES.slice(half).map((e) => other.apply(key, change({ events: { [e]: true } }))),
          other.apply(key, change({ level: "custom" })),
          fx.store.apply(key, change({ notificationEmail: `r${round}@example.com` })),
        ]);
        for (const store of [fx.store, other]) {
          const read = await store.get(key);
          expect(read?.level).toBe("custom");
          expect(read?.notificationEmail).toBe(`r${round}@example.com`);
          expect(EVENT_NAMES.filter((e) => read?.events[e] !== true)).toEqual([]);
          expect(await store.listForUsers([key.userId], key.sourceId, [])).toHaveLength(1);
        }
      }
    });

    it("two replicas writing the same field of one setting at once leave one of the written values, and every other field intact", async () => {
      const other = fx.replica ? await fx.replica() : fx.store;
      const key = global(400);
      await fx.store.apply(key, change({ level: "custom", notificationEmail: "keep@example.com", events: { new_epic: true } }));
      for (let round = 0; round < 10; round++) {
        const [mine, theirs] = await Promise.all([
          fx.store.apply(key, change({ events: { new_note: round % 2 === 0 } })),
          other.apply(key, change({ events: { new_note: round % 2 === 1 }, level: round % 2 ? "watch" : "mention" })),
        ]);
        expect(mine.events.new_epic && theirs.events.new_epic).toBe(true);
        const read = await fx.store.get(key);
        expect([true, false]).toContain(read?.events.new_note);
        expect(read).toMatchObject({ level: round % 2 ? "watch" : "mention", notificationEmail: "keep@example.com" });
        expect(read?.events.new_epic).toBe(true);
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

    it("lists the global settings of many users alone, in one read", async () => {
      await fx.store.apply(global(1), change({ defaultLevel: "participating", notificationEmail: "one@example.com" }));
      await fx.store.apply(global(2), change({ defaultLevel: "participating" }));
      await fx.store.apply(project(1, 10), change({ level: "watch" })); // not global
      await fx.store.apply(group(3, 5), change({ level: "mention" })); // not global
      await fx.store.apply(global(4), change({ defaultLevel: "participating" })); // not asked for
      const found = await fx.store.listGlobal([1, 2, 3]);
      expect(found.map((s) => `${s.userId}:${s.sourceType}:${s.sourceId}`).sort()).toEqual(["1:global:0", "2:global:0"]);
      expect(found.find((s) => s.userId === 1)?.notificationEmail).toBe("one@example.com");
      expect(await fx.store.listGlobal([])).toEqual([]);
    });

    it("reads a thousand users' settings in one call", async () => {
      const ids = Array.from({ length: 1000 }, (_, i) => i + 1);
      for (const u of ids.filter((u) => u % 10 === 0)) await fx.store.apply(project(u, 10), change({ level: "watch" }));
      const found = await fx.store.listForUsers(ids, 10, [1, 2, 3, 4, 5]);
      expect(found).toHaveLength(100);
    });
  });
}
