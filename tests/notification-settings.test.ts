import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { startSettingsSystem } from "./notification-settings-system.js";
import { addMember, type SeededGroup, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";

// The 18 events of spec section 6, in order.
const EVENTS = [
  "new_note",
  "new_issue",
  "reopen_issue",
  "close_issue",
  "reassign_issue",
  "issue_due",
  "new_merge_request",
  "push_to_merge_request",
  "reopen_merge_request",
  "close_merge_request",
  "reassign_merge_request",
  "merge_merge_request",
  "failed_pipeline",
  "fixed_pipeline",
  "success_pipeline",
  "moved_project",
  "merge_when_pipeline_succeeds",
  "new_epic",
];
const WITHOUT_EPIC = EVENTS.slice(0, 17);

interface System {
  url: string;
  adminToken: string;
  stop(): Promise<void>;
}

/** The whole system when every service is there; else auth + settings + gateway. */
async function boot(): Promise<System> {
  try {
    const { startSystem } = await import("./harness.js");
    return await startSystem();
  } catch (err) {
    console.warn(
      `[notification-settings] tests/harness.ts unusable (${(err as Error).message.split("\n")[0]}); booting auth + settings + gateway`,
    );
    return startSettingsSystem();
  }
}

describe("notification settings REST API (spec 4.3–4.6, PRODUCT.md 3)", () => {
  let sys: System;
  let alice: SeededUser;
  let bob: SeededUser;
  let ult: SeededGroup;
  let sub: SeededGroup;
  let free: SeededGroup;
  let project: SeededProject;
  let bobsProject: SeededProject;
  let as: ReturnType<typeof api>;

  beforeAll(async () => {
    sys = await boot();
    alice = await seedUser(sys.url, sys.adminToken, { username: "alice" });
    bob = await seedUser(sys.url, sys.adminToken, { username: "bob" });
    as = api(sys.url, alice.token);
    const admin = api(sys.url, sys.adminToken);
    expect(
      (await admin.post(`/api/v4/users/${alice.user.id}/emails`, { email: "alice.alt@example.com", skip_confirmation: true }))
        .status,
    ).toBe(201);
    expect((await as.post("/api/v4/user/emails", { email: "alice.pending@example.com" })).status).toBe(201);
    free = await seedGroup(sys.url, alice.token, { path: "free-grp" });
    sub = await seedGroup(sys.url, alice.token, { path: "sub", parentId: free.id });
    project = await seedProject(sys.url, alice.token, { path: "app", namespaceId: sub.id });
    ult = await seedGroup(sys.url, sys.adminToken, { path: "ult-grp", plan: "ultimate" });
    bobsProject = await seedProject(sys.url, bob.token, { path: "secret" });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  describe("authentication", () => {
    it("answers 401 without a token or with an unknown one", async () => {
      for (const res of [
        await api(sys.url).get("/api/v4/notification_settings"),
        await api(sys.url, "nope").put("/api/v4/notification_settings?level=watch"),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ message: "401 Unauthorized" });
      }
    });

    it("lets a read_api token read but not write (403 insufficient_scope)", async () => {
      const admin = api(sys.url, sys.adminToken);
      const t = await admin.post(`/api/v4/users/${bob.user.id}/personal_access_tokens`, { name: "ro", scopes: ["read_api"] });
      const ro = api(sys.url, t.body.token);
      expect((await ro.get("/api/v4/notification_settings")).status).toBe(200);
      const put = await ro.put(`/api/v4/projects/${bobsProject.id}/notification_settings?level=watch`);
      expect(put.status).toBe(403);
      expect(put.body.error).toBe("insufficient_scope");
    });

    it("refuses revoked tokens with 401", async () => {
      const admin = api(sys.url, sys.adminToken);
      const t = await admin.post(`/api/v4/users/${bob.user.id}/personal_access_tokens`, { name: "gone", scopes: ["api"] });
      expect((await admin.del(`/api/v4/personal_access_tokens/${t.body.id}`)).status).toBe(204);
      expect((await api(sys.url, t.body.token).get("/api/v4/notification_settings")).status).toBe(401);
    });
  });

  describe("global setting", () => {
    it("defaults to participating and the primary e-mail, exactly", async () => {
      const res = await api(sys.url, bob.token).get("/api/v4/notification_settings");
      expect(res.status).toBe(200);
      expect(res.text).toBe(JSON.stringify({ level: "participating", notification_email: "bob@example.com" }));
    });

    it("updates from the query string, a JSON body and a form body", async () => {
      expect((await as.put("/api/v4/notification_settings?level=watch")).body).toEqual({
        level: "watch",
        notification_email: "alice@example.com",
      });
      expect((await as.put("/api/v4/notification_settings", { level: "mention" })).body.level).toBe("mention");
      const form = await as.request(
        "PUT",
        "/api/v4/notification_settings",
        "level=disabled&notification_email=alice.alt%40example.com",
        {
          "content-type": "application/x-www-form-urlencoded",
        },
      );
      expect(form.body).toEqual({ level: "disabled", notification_email: "alice.alt@example.com" });
      expect((await as.get("/api/v4/notification_settings")).body).toEqual({
        level: "disabled",
        notification_email: "alice.alt@example.com",
      });
    });

    it("shows 17 events at level custom, and new_epic once the user is in an Ultimate group", async () => {
      const res = await as.put("/api/v4/notification_settings?level=custom&new_note=true&new_epic=true");
      expect(Object.keys(res.body)).toEqual(["level", "notification_email", "events"]);
      expect(Object.keys(res.body.events)).toEqual(WITHOUT_EPIC);
      expect(res.body.events.new_note).toBe(true);
      expect(res.body.events.new_issue).toBe(false);
      await addMember(sys.url, sys.adminToken, "groups", ult.id, alice.user.id, 30);
      const after = await as.get("/api/v4/notification_settings");
      expect(Object.keys(after.body.events)).toEqual(EVENTS);
      expect(after.body.events.new_epic).toBe(false); // sent while it did not apply: ignored
      expect((await as.put("/api/v4/notification_settings", { new_epic: true })).body.events.new_epic).toBe(true);
    });

    it("rejects invalid levels with GitLab's message, case-sensitively", async () => {
      for (const [sent, shown] of [
        ["Watch", "Watch"],
        ["invalid", "invalid"],
        ["", ""],
      ]) {
        const res = await as.put(`/api/v4/notification_settings?level=${sent}`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ message: `'${shown}' is not a valid level` });
      }
    });

    it("rejects a bad boolean with {error: '<param> is invalid'}", async () => {
      const res = await as.put("/api/v4/notification_settings?new_note=maybe");
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "new_note is invalid" });
      expect((await as.put("/api/v4/groups/1/notification_settings", { moved_project: "sure" })).body).toEqual({
        error: "moved_project is invalid",
      });
    });

    it("accepts only a confirmed e-mail of the user, and then writes nothing", async () => {
      await as.put("/api/v4/notification_settings?level=watch");
      for (const email of ["alice.pending@example.com", "bob@example.com", "nobody@example.com"]) {
        const res = await as.put("/api/v4/notification_settings", {
          level: "disabled",
          notification_email: email,
          new_issue: true,
        });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ message: { notification_email: ["must be an email you have verified"] } });
      }
      const now = await as.get("/api/v4/notification_settings");
      expect(now.body).toMatchObject({ level: "watch", notification_email: "alice.alt@example.com" });
      expect((await as.put("/api/v4/notification_settings?level=custom")).body.events.new_issue).toBe(false);
    });
  });

  describe("group and project settings", () => {
    it("default to global and persist nothing on GET", async () => {
      const g = await as.get(`/api/v4/groups/${free.id}/notification_settings`);
      expect(g.status).toBe(200);
      expect(g.text).toBe('{"level":"global"}');
      expect((await as.get(`/api/v4/projects/${project.id}/notification_settings`)).body).toEqual({ level: "global" });
    });

    it("find groups and projects by URL-encoded full path", async () => {
      expect((await as.put("/api/v4/groups/free-grp%2Fsub/notification_settings?level=watch")).body).toEqual({ level: "watch" });
      expect((await as.get(`/api/v4/groups/${sub.id}/notification_settings`)).body).toEqual({ level: "watch" });
      expect((await as.put("/api/v4/groups/free-grp/notification_settings", { level: "mention" })).body).toEqual({
        level: "mention",
      });
      const byPath = await as.put(
        `/api/v4/projects/${encodeURIComponent(project.path_with_namespace)}/notification_settings?level=disabled`,
      );
      expect(byPath.body).toEqual({ level: "disabled" });
      expect((await as.get(`/api/v4/projects/${project.id}/notification_settings`)).body).toEqual({ level: "disabled" });
    });

    it("answer 404 for unknown and invisible groups and projects", async () => {
      const cases: Array<[string, string]> = [
        [`/api/v4/groups/999999/notification_settings`, "404 Group Not Found"],
        [`/api/v4/groups/no-such-group/notification_settings`, "404 Group Not Found"],
        [`/api/v4/projects/999999/notification_settings`, "404 Project Not Found"],
        [`/api/v4/projects/${bobsProject.id}/notification_settings`, "404 Project Not Found"],
        [
          `/api/v4/projects/${encodeURIComponent(bobsProject.path_with_namespace)}/notification_settings`,
          "404 Project Not Found",
        ],
        [`/api/v4/projects/app/notification_settings`, "404 Project Not Found"],
      ];
      for (const [path, message] of cases) {
        for (const res of [await as.get(path), await as.put(`${path}?level=watch`)]) {
          expect(res.status, path).toBe(404);
          expect(res.body).toEqual({ message });
        }
      }
      const bobs = api(sys.url, bob.token);
      expect((await bobs.get(`/api/v4/groups/${free.id}/notification_settings`)).body).toEqual({
        message: "404 Group Not Found",
      });
    });

    it("show 18 events for an Ultimate group and 17 for projects, in order, when custom", async () => {
      const g = await as.put(`/api/v4/groups/${ult.id}/notification_settings?level=custom&new_epic=true&new_note=true`);
      expect(Object.keys(g.body)).toEqual(["level", "events"]);
      expect(Object.keys(g.body.events)).toEqual(EVENTS);
      expect(g.body.events).toMatchObject({ new_epic: true, new_note: true, new_issue: false });
      const fg = await as.put(`/api/v4/groups/${free.id}/notification_settings`, { level: "custom", new_epic: true });
      expect(Object.keys(fg.body.events)).toEqual(WITHOUT_EPIC);
      const p = await as.put(
        `/api/v4/projects/${project.id}/notification_settings?level=custom&new_epic=true&moved_project=true`,
      );
      expect(p.status).toBe(200);
      expect(Object.keys(p.body.events)).toEqual(WITHOUT_EPIC);
      expect(p.body.events.moved_project).toBe(true);
      expect(Object.values(p.body.events).every((v) => typeof v === "boolean")).toBe(true);
    });

    it("store events sent with a non-custom level and show them once custom", async () => {
      const hidden = await as.put(
        `/api/v4/projects/${project.id}/notification_settings?level=watch&failed_pipeline=true&new_note=false`,
      );
      expect(hidden.body).toEqual({ level: "watch" });
      const shown = await as.put(`/api/v4/projects/${project.id}/notification_settings`, { level: "custom" });
      expect(shown.body.events).toMatchObject({ failed_pipeline: true, new_note: false, moved_project: true });
    });

    it("reject invalid levels and booleans, and leave the setting unchanged", async () => {
      const bad = await as.put(`/api/v4/projects/${project.id}/notification_settings?level=Custom`);
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ message: "'Custom' is not a valid level" });
      const form = await as.request("PUT", `/api/v4/groups/${free.id}/notification_settings`, "level=custom&new_note=perhaps", {
        "content-type": "application/x-www-form-urlencoded",
      });
      expect(form.body).toEqual({ error: "new_note is invalid" });
      expect((await as.get(`/api/v4/projects/${project.id}/notification_settings`)).body.level).toBe("custom");
    });

    it("ignore notification_email on group and project settings", async () => {
      const res = await as.put(`/api/v4/groups/${sub.id}/notification_settings`, { notification_email: "nobody@example.com" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ level: "watch" });
    });
  });
});
