import { MAX_NOTIFICATION_EMAIL_USERS } from "@tocsin/proto";
import { rejectionReason } from "@tocsin/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { SqliteSettingsStore } from "../store/sqlite-settings-store.js";
import { MAX_EMAIL_USERS, notificationEmails, resolveAlertRecipients } from "./alert-recipients.js";
import type { Level } from "./events.js";
import { FakeDirectory } from "./fake-directory.js";

describe("alert recipients (PRODUCT.md section 9)", () => {
  let dir: FakeDirectory;
  let store: SqliteSettingsStore;
  const at = new Date("2026-01-01T00:00:00Z");
  const save = (userId: number, sourceType: "global" | "group" | "project", sourceId: number, level: Level, email?: string) =>
    store.apply(
      { userId, sourceType, sourceId },
      { defaultLevel: "global", level, events: {}, at, ...(email ? { notificationEmail: email } : {}) },
    );
  const resolve = async () =>
    (await resolveAlertRecipients({ store, directory: dir }, 100, { requestId: "t" })).map((r) => `${r.userId}:${r.email}`);

  beforeEach(() => {
    dir = new FakeDirectory();
    store = new SqliteSettingsStore(":memory:");
    dir.addProject(100, "grp/app", [10], []);
    dir.members.set(100, [
      { userId: 1, email: "owner@x", accessLevel: 50, blocked: false },
      { userId: 2, email: "maint@x", accessLevel: 40, blocked: false },
      { userId: 3, email: "dev@x", accessLevel: 30, blocked: false },
      { userId: 4, email: "blocked@x", accessLevel: 40, blocked: true },
      { userId: 5, email: "pdis@x", accessLevel: 40, blocked: false },
      { userId: 6, email: "gdis@x", accessLevel: 50, blocked: false },
    ]);
  });

  it("Owners and Maintainers, not blocked, not disabled (on the project or inherited from a group)", async () => {
    await save(5, "project", 100, "disabled");
    await save(6, "group", 10, "disabled");
    expect(await resolve()).toEqual(["1:owner@x", "2:maint@x"]);
  });

  it("uses the notification e-mail, and any level but disabled (global disabled counts too)", async () => {
    await save(1, "global", 0, "mention", "alerts@x");
    await save(2, "global", 0, "disabled");
    await save(6, "project", 100, "watch");
    await save(6, "group", 10, "disabled");
    expect(await resolve()).toEqual(["1:alerts@x", "5:pdis@x", "6:gdis@x"]);
  });

  it("lists the notification e-mails saved in global settings, in one read; internal callers only", async () => {
    await save(1, "global", 0, "mention", "alerts@x");
    await save(2, "global", 0, "watch"); // no e-mail saved: left out (the primary applies)
    await save(3, "project", 100, "watch");
    await save(4, "global", 0, "participating", "four@x");
    const internal = { requestId: "t" };
    expect([...(await notificationEmails(store, [1, 2, 3, 4, 4, 9], internal))].sort()).toEqual([
      [1, "alerts@x"],
      [4, "four@x"],
    ]);
    expect((await notificationEmails(store, [], internal)).size).toBe(0);
    const principal = { requestId: "t", principal: { userId: 1 } } as Parameters<typeof notificationEmails>[2];
    expect(await rejectionReason(notificationEmails(store, [1], principal))).toBe("FORBIDDEN");
    const many = Array.from({ length: MAX_EMAIL_USERS + 1 }, (_, i) => i + 1);
    expect(await rejectionReason(notificationEmails(store, many, internal))).toBe("TOO_MANY_USERS");
  });

  it("enforces the limit the RPC's clients split their calls by", () => {
    // The domain imports no generated code, so it keeps its own figure; this pins the two together.
    expect(MAX_EMAIL_USERS).toBe(MAX_NOTIFICATION_EMAIL_USERS);
  });
});
