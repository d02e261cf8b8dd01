import type { AppError } from "@tocsin/core";
import { beforeEach, describe, expect, it } from "vitest";
import { SqliteSettingsStore } from "../store/sqlite-settings-store.js";
import type { EventName, Level } from "./events.js";
import { FakeDirectory } from "./fake-directory.js";
import type { SettingKey } from "./ports.js";
import { decide, effectiveSetting, resolveRecipients } from "./recipients.js";

const at = new Date();
const none = { participant: false, mentioned: false };
const participant = { participant: true, mentioned: false };
const mentioned = { participant: false, mentioned: true };

describe("decide: one member, level by level", () => {
  it("disabled: nobody, not even a mentioned participant", () => {
    expect(decide({ level: "disabled", events: {} }, "new_note", { participant: true, mentioned: true })).toBeUndefined();
  });

  it("participating: participants and mentioned users only", () => {
    const s = { level: "participating" as const, events: {} };
    expect(decide(s, "new_note", none)).toBeUndefined();
    expect(decide(s, "new_note", participant)).toBe("participating");
    expect(decide(s, "new_note", mentioned)).toBe("mention");
  });

  it("mention: only when mentioned, even as a participant", () => {
    const s = { level: "mention" as const, events: {} };
    expect(decide(s, "new_note", participant)).toBeUndefined();
    expect(decide(s, "new_note", mentioned)).toBe("mention");
  });

  it("watch: everything, except the excluded watcher events, which follow the participating rule", () => {
    const s = { level: "watch" as const, events: {} };
    expect(decide(s, "new_note", none)).toBe("watch");
    for (const e of ["push_to_merge_request", "issue_due", "success_pipeline"] as EventName[]) {
      expect(decide(s, e, none)).toBeUndefined();
      expect(decide(s, e, participant)).toBe("participating");
      expect(decide(s, e, mentioned)).toBe("mention");
    }
  });

  it("custom: the events switched on, plus participating behaviour and mentions", () => {
    const s = { level: "custom" as const, events: { new_note: true, issue_due: true, new_issue: false } };
    expect(decide(s, "new_note", none)).toBe("custom");
    expect(decide(s, "issue_due", none)).toBe("custom"); // custom is not subject to the watcher exclusion
    expect(decide(s, "new_issue", none)).toBeUndefined();
    expect(decide(s, "close_issue", participant)).toBe("participating");
    expect(decide(s, "close_issue", mentioned)).toBe("mention");
  });
});

describe("effectiveSetting: project → nearest non-global group → global", () => {
  const s = (level: Level, sourceType: SettingKey["sourceType"] = "group", events = {}) => ({
    userId: 1,
    sourceType,
    sourceId: 1,
    level,
    notificationEmail: undefined,
    events,
    createdAt: at,
    updatedAt: at,
  });
  it("uses the project setting unless it is global", () => {
    expect(effectiveSetting(s("watch", "project"), [s("disabled")], s("mention", "global")).level).toBe("watch");
  });
  it("falls back to the nearest group that is not global, skipping global and unsaved ones", () => {
    expect(
      effectiveSetting(
        s("global", "project"),
        [undefined, s("global"), s("custom", "group", { new_note: true }), s("disabled")],
        undefined,
      ),
    ).toEqual({ level: "custom", events: { new_note: true } });
  });
  it("then the global setting, then participating", () => {
    expect(effectiveSetting(undefined, [s("global")], s("mention", "global")).level).toBe("mention");
    expect(effectiveSetting(undefined, [], undefined).level).toBe("participating");
    expect(effectiveSetting(undefined, [], s("global", "global")).level).toBe("participating");
  });
});

describe("resolveRecipients over a store and a directory", () => {
  let dir: FakeDirectory;
  let store: SqliteSettingsStore;
  const set = (key: SettingKey, level: Level, events = {}, notificationEmail?: string) =>
    store.apply(key, { defaultLevel: level, level, events, at, ...(notificationEmail ? { notificationEmail } : {}) });
  const resolve = (event: string, participants: number[] = [], mentions: number[] = []) =>
    resolveRecipients(
      { store, directory: dir },
      { projectId: 100, event, participantUserIds: participants, mentionedUserIds: mentions },
      { requestId: "t" },
    );

  beforeEach(() => {
    dir = new FakeDirectory();
    store = new SqliteSettingsStore(":memory:");
    dir.addProject(100, "top/mid/app", [2, 1], []); // mid (2) is nearest, then top (1)
    dir.members.set(
      100,
      [1, 2, 3, 4, 5].map((u) => ({ userId: u, email: `u${u}@example.com`, accessLevel: 30, blocked: false })),
    );
  });

  it("notifies by default only participants and mentioned members, at their primary address", async () => {
    const r = await resolve("new_note", [1, 99], [2, 98]);
    expect(r).toEqual([
      { userId: 1, email: "u1@example.com", level: "participating", reason: "participating" },
      { userId: 2, email: "u2@example.com", level: "participating", reason: "mention" },
    ]);
  });

  it("follows the chain: project, nearest group, farther group, global", async () => {
    await set({ userId: 1, sourceType: "project", sourceId: 100 }, "watch");
    await set({ userId: 2, sourceType: "project", sourceId: 100 }, "global");
    await set({ userId: 2, sourceType: "group", sourceId: 2 }, "watch");
    await set({ userId: 2, sourceType: "group", sourceId: 1 }, "disabled");
    await set({ userId: 3, sourceType: "group", sourceId: 2 }, "global");
    await set({ userId: 3, sourceType: "group", sourceId: 1 }, "watch");
    await set({ userId: 4, sourceType: "global", sourceId: 0 }, "watch", {}, "alt4@example.com");
    await set({ userId: 5, sourceType: "group", sourceId: 1 }, "disabled");
    await set({ userId: 5, sourceType: "global", sourceId: 0 }, "watch");
    const r = await resolve("new_issue", [5], [5]);
    expect(r.map((x) => [x.userId, x.email, x.level, x.reason])).toEqual([
      [1, "u1@example.com", "watch", "watch"],
      [2, "u2@example.com", "watch", "watch"],
      [3, "u3@example.com", "watch", "watch"],
      [4, "alt4@example.com", "watch", "watch"],
    ]);
  });

  it("uses the events of the custom setting that is in effect", async () => {
    await set({ userId: 1, sourceType: "group", sourceId: 1 }, "custom", { failed_pipeline: true });
    await set({ userId: 1, sourceType: "global", sourceId: 0 }, "custom", { new_note: true });
    await set({ userId: 2, sourceType: "global", sourceId: 0 }, "custom", { new_note: true });
    expect((await resolve("failed_pipeline")).map((x) => x.userId)).toEqual([1]);
    expect((await resolve("new_note")).map((x) => x.userId)).toEqual([2]);
  });

  it("rejects an unknown event and passes auth's NOT_FOUND through", async () => {
    expect(await resolve("new_thing").catch((e: AppError) => e)).toMatchObject({
      code: "INVALID_ARGUMENT",
      reason: "INVALID_EVENT",
    });
    const missing = await resolveRecipients(
      { store, directory: dir },
      { projectId: 5, event: "new_note", participantUserIds: [], mentionedUserIds: [] },
      { requestId: "t" },
    ).catch((e: AppError) => e);
    expect(missing).toMatchObject({ code: "NOT_FOUND", message: "404 Project Not Found" });
  });

  it("resolves 1,000 members under a 5-level chain with one batched store read", async () => {
    const chain = [5, 4, 3, 2, 1];
    dir.addProject(100, "a/b/c/d/e/app", chain, []);
    const members = Array.from({ length: 1000 }, (_, i) => ({
      userId: i + 1,
      email: `m${i + 1}@example.com`,
      accessLevel: 30,
      blocked: false,
    }));
    dir.members.set(100, members);
    const levels: Level[] = ["watch", "disabled", "custom", "mention", "global"];
    for (const m of members) {
      const level = levels[m.userId % 5] as Level;
      await set({ userId: m.userId, sourceType: "group", sourceId: chain[m.userId % 5] as number }, level, { new_note: true });
    }
    let reads = 0;
    const counting = {
      listForUsers: (...a: Parameters<typeof store.listForUsers>) => {
        reads++;
        return store.listForUsers(...a);
      },
    };
    await resolveRecipients(
      { store: counting as never, directory: dir },
      { projectId: 100, event: "new_note", participantUserIds: [], mentionedUserIds: [] },
      { requestId: "w" },
    );
    const r = await resolveRecipients(
      { store: counting as never, directory: dir },
      { projectId: 100, event: "new_note", participantUserIds: [1, 2, 3], mentionedUserIds: [4] },
      { requestId: "t" },
    );
    // One batched read for the whole candidate set, whatever its size (speed is measured in bench/).
    expect(reads).toBe(2);
    // watch (200) + custom with new_note (200) + participants/mentioned at participating-by-global (global level users 5,10,...: none involved) + user 4 (mention level, mentioned)
    expect(r.filter((x) => x.reason === "watch")).toHaveLength(200);
    expect(r.filter((x) => x.reason === "custom")).toHaveLength(200);
  });
});
