import type { AppError } from "@tocsin/core";
import { FakeClock } from "@tocsin/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { SqliteSettingsStore } from "../store/sqlite-settings-store.js";
import { EVENT_NAMES } from "./events.js";
import { FakeDirectory } from "./fake-directory.js";
import { createSettingsUseCases, type SettingsUseCases } from "./settings.js";

const ctx = { requestId: "t", principal: { userId: 1 } };
const err = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as AppError,
  );

describe("notification settings use-cases", () => {
  let dir: FakeDirectory;
  let store: SqliteSettingsStore;
  let uc: SettingsUseCases;

  beforeEach(() => {
    dir = new FakeDirectory();
    store = new SqliteSettingsStore(":memory:");
    uc = createSettingsUseCases({ store, directory: dir, clock: new FakeClock() });
    dir.emails.set(1, [
      { email: "one@example.com", confirmed: true, primary: true },
      { email: "alt@example.com", confirmed: true, primary: false },
      { email: "pending@example.com", confirmed: false, primary: false },
    ]);
    dir.addGroup(10, "free-group", "free", [1]);
    dir.addGroup(20, "ult", "ultimate", [1]);
    dir.addGroup(30, "secret", "ultimate", [2]);
    dir.addProject(100, "free-group/app", [10], [1]);
    dir.addProject(200, "secret/app", [30], [2]);
  });

  it("shows defaults without writing anything: participating + primary email; sources global", async () => {
    const global = await uc.getGlobal(1, ctx);
    expect(global).toMatchObject({ level: "participating", notificationEmail: "one@example.com", newEpicApplies: false });
    expect(Object.keys(global.events)).toEqual([...EVENT_NAMES]);
    expect(Object.values(global.events).every((v) => v === false)).toBe(true);
    expect((await uc.getSource(1, "group", "10", ctx)).level).toBe("global");
    expect((await uc.getSource(1, "project", "free-group/app", ctx)).level).toBe("global");
    expect(await store.listForUsers([1], 100, [10])).toEqual([]);
  });

  it("updates only the fields given", async () => {
    await uc.updateGlobal(1, { level: "watch", events: {} }, ctx);
    const after = await uc.updateGlobal(1, { notificationEmail: "alt@example.com", events: { new_note: true } }, ctx);
    expect(after).toMatchObject({ level: "watch", notificationEmail: "alt@example.com" });
    expect(after.events.new_note).toBe(true);
    const again = await uc.updateGlobal(1, { events: {} }, ctx);
    expect(again).toMatchObject({ level: "watch", notificationEmail: "alt@example.com" });
  });

  it("stores events sent with a non-custom level and shows them once the level is custom", async () => {
    await uc.updateSource(1, "project", "100", { level: "watch", events: { new_issue: true, moved_project: true } }, ctx);
    const custom = await uc.updateSource(1, "project", "100", { level: "custom", events: {} }, ctx);
    expect(custom.events).toMatchObject({ new_issue: true, moved_project: true, new_note: false });
  });

  it("rejects invalid levels, case-sensitively and the empty string, writing nothing", async () => {
    for (const bad of ["Watch", "invalid", ""]) {
      const e = await err(uc.updateGlobal(1, { level: bad, events: { new_note: true } }, ctx));
      expect(e).toMatchObject({ code: "INVALID_ARGUMENT", reason: "INVALID_LEVEL", message: `'${bad}' is not a valid level` });
      const s = await err(uc.updateSource(1, "group", "10", { level: bad, events: {} }, ctx));
      expect(s).toMatchObject({ reason: "INVALID_LEVEL" });
    }
    expect(await store.listForUsers([1], 100, [10])).toEqual([]);
  });

  it("accepts only a confirmed e-mail of the user, and then writes nothing at all", async () => {
    await uc.updateGlobal(1, { level: "watch", events: {} }, ctx);
    for (const email of ["pending@example.com", "someone@else.com"]) {
      const e = await err(uc.updateGlobal(1, { level: "disabled", notificationEmail: email, events: { new_note: true } }, ctx));
      expect(e).toMatchObject({ code: "INVALID_ARGUMENT", reason: "EMAIL_NOT_VERIFIED" });
      expect(e?.fields).toEqual({ notification_email: ["must be an email you have verified"] });
    }
    const now = await uc.getGlobal(1, ctx);
    expect(now).toMatchObject({ level: "watch", notificationEmail: "one@example.com" });
    expect(now.events.new_note).toBe(false);
  });

  it("checks the level before the e-mail (GitLab's order)", async () => {
    const e = await err(uc.updateGlobal(1, { level: "nope", notificationEmail: "x@y.z", events: {} }, ctx));
    expect(e?.reason).toBe("INVALID_LEVEL");
  });

  it("answers auth's 404 for an invisible or unknown source, before looking at the level", async () => {
    expect(await err(uc.getSource(1, "group", "30", ctx))).toMatchObject({ code: "NOT_FOUND", message: "404 Group Not Found" });
    expect(await err(uc.getSource(1, "project", "200", ctx))).toMatchObject({ message: "404 Project Not Found" });
    expect(await err(uc.updateSource(1, "project", "999", { level: "bad", events: {} }, ctx))).toMatchObject({
      message: "404 Project Not Found",
    });
  });

  it("applies new_epic to Ultimate groups and to members of one, never to projects", async () => {
    expect((await uc.updateSource(1, "group", "20", { level: "custom", events: { new_epic: true } }, ctx)).newEpicApplies).toBe(
      true,
    );
    expect((await store.get({ userId: 1, sourceType: "group", sourceId: 20 }))?.events.new_epic).toBe(true);

    const free = await uc.updateSource(1, "group", "10", { level: "custom", events: { new_epic: true, new_note: true } }, ctx);
    expect(free).toMatchObject({ newEpicApplies: false });
    expect((await store.get({ userId: 1, sourceType: "group", sourceId: 10 }))?.events).toEqual({ new_note: true });

    await uc.updateSource(1, "project", "100", { level: "custom", events: { new_epic: true } }, ctx);
    expect((await store.get({ userId: 1, sourceType: "project", sourceId: 100 }))?.events).toEqual({});

    await uc.updateGlobal(1, { level: "custom", events: { new_epic: true } }, ctx);
    expect((await uc.getGlobal(1, ctx)).events.new_epic).toBe(false);
    dir.userGroups.set(1, [{ id: 20, plan: "ultimate" }]);
    await uc.updateGlobal(1, { events: { new_epic: true } }, ctx);
    expect(await uc.getGlobal(1, ctx)).toMatchObject({ newEpicApplies: true, events: { new_epic: true } });
  });

  it("lets a principal act only for itself", async () => {
    expect(await err(uc.getGlobal(2, ctx))).toMatchObject({ code: "PERMISSION_DENIED" });
    expect((await uc.getGlobal(1, { requestId: "internal" })).level).toBe("participating");
  });
});
