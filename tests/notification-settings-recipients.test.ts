import type { AppError } from "@tocsin/core";
import { createClient, type PromiseClient } from "@tocsin/grpc";
import { settingsV1 } from "@tocsin/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type SettingsSystem, startSettingsSystem } from "./notification-settings-system.js";
import { addMember, type SeededGroup, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";

/**
 * ResolveRecipients over real gRPC with the real auth-service; settings are written through the
 * REST API as each user. The project sits under a chain top > mid > low.
 */
describe("recipient resolution (gRPC, real auth-service)", () => {
  let sys: SettingsSystem;
  let client: PromiseClient<typeof settingsV1.SettingsServiceService>;
  let owner: SeededUser;
  const users: Record<string, SeededUser> = {};
  let top: SeededGroup;
  let mid: SeededGroup;
  let low: SeededGroup;
  let project: SeededProject;
  let outsider: SeededUser;

  const put = async (who: string, path: string, query: string) => {
    const res = await api(sys.url, users[who]?.token).put(`/api/v4/${path}/notification_settings?${query}`);
    expect(res.status, res.text).toBe(200);
  };
  const resolve = async (event: string, participants: string[] = [], mentioned: string[] = []) => {
    const ids = (names: string[]) => names.map((n) => (n === "outsider" ? outsider.user.id : (users[n]?.user.id as number)));
    const res = await client.resolveRecipients(
      { projectId: project.id, event, participantUserIds: ids(participants), mentionedUserIds: ids(mentioned) },
      { requestId: "recipients-test" },
    );
    const byId = new Map(Object.entries(users).map(([name, u]) => [u.user.id, name]));
    return res.recipients.map((r) => `${byId.get(r.userId) ?? r.userId}:${r.reason}:${r.level}:${r.email}`).sort();
  };

  beforeAll(async () => {
    sys = await startSettingsSystem();
    owner = await seedUser(sys.url, sys.adminToken, { username: "owner" });
    top = await seedGroup(sys.url, owner.token, { path: "top" });
    mid = await seedGroup(sys.url, owner.token, { path: "mid", parentId: top.id });
    low = await seedGroup(sys.url, owner.token, { path: "low", parentId: mid.id });
    project = await seedProject(sys.url, owner.token, { path: "svc", namespaceId: low.id });
    for (const name of ["dis", "par", "men", "wat", "cus", "chain", "glob"]) {
      users[name] = await seedUser(sys.url, sys.adminToken, { username: name });
    }
    // Members through every route: top group, mid group, the project itself (glob).
    for (const name of ["dis", "par", "men", "chain"])
      await addMember(sys.url, owner.token, "groups", top.id, users[name]!.user.id, 30);
    for (const name of ["wat", "cus"]) await addMember(sys.url, owner.token, "groups", mid.id, users[name]!.user.id, 30);
    for (const name of ["glob"]) await addMember(sys.url, owner.token, "projects", project.id, users[name]!.user.id, 30);
    outsider = await seedUser(sys.url, sys.adminToken, { username: "outsider" });
    await api(sys.url, sys.adminToken).post(`/api/v4/users/${users.glob!.user.id}/emails`, {
      email: "glob.alerts@example.com",
      skip_confirmation: true,
    });

    await put("dis", `projects/${project.id}`, "level=disabled");
    // par: nothing saved → participating by default
    await put("men", `groups/${top.id}`, "level=mention");
    await put("wat", `groups/${mid.id}`, "level=watch");
    await put("cus", `projects/${project.id}`, "level=custom&new_issue=true&failed_pipeline=true");
    // chain: project global → low global → mid watch (nearest non-global) → top disabled ignored
    await put("chain", `projects/${project.id}`, "level=global");
    await put("chain", `groups/${low.id}`, "level=global");
    await put("chain", `groups/${mid.id}`, "level=watch");
    await put("chain", `groups/${top.id}`, "level=disabled");
    await api(sys.url, users.glob!.token).put(
      "/api/v4/notification_settings?level=custom&new_note=true&notification_email=glob.alerts%40example.com",
    );
    client = createClient(settingsV1.SettingsServiceService, { target: "settings", address: sys.settingsAddr });
  });
  afterAll(async () => {
    client?.close();
    await sys?.stop();
  });

  it("with no participants: watchers and matching custom settings only", async () => {
    expect(await resolve("new_note")).toEqual([
      "chain:watch:watch:chain@example.com",
      "glob:custom:custom:glob.alerts@example.com",
      "wat:watch:watch:wat@example.com",
    ]);
    expect(await resolve("new_issue")).toEqual([
      "chain:watch:watch:chain@example.com",
      "cus:custom:custom:cus@example.com",
      "wat:watch:watch:wat@example.com",
    ]);
  });

  it("participants: everyone but disabled and mention levels", async () => {
    const all = ["dis", "par", "men", "wat", "cus", "chain", "glob"];
    expect(await resolve("close_issue", all)).toEqual([
      "chain:watch:watch:chain@example.com",
      "cus:participating:custom:cus@example.com",
      "glob:participating:custom:glob.alerts@example.com",
      "par:participating:participating:par@example.com",
      "wat:watch:watch:wat@example.com",
    ]);
  });

  it("mentions: every level but disabled", async () => {
    const all = ["dis", "par", "men", "wat", "cus", "chain", "glob"];
    expect(await resolve("close_issue", [], all)).toEqual([
      "chain:watch:watch:chain@example.com",
      "cus:mention:custom:cus@example.com",
      "glob:mention:custom:glob.alerts@example.com",
      "men:mention:mention:men@example.com",
      "par:mention:participating:par@example.com",
      "wat:watch:watch:wat@example.com",
    ]);
  });

  it("excluded watcher events fall back to the participating rule for watchers", async () => {
    expect(await resolve("push_to_merge_request")).toEqual([]);
    expect(await resolve("issue_due", ["wat"], ["chain"])).toEqual([
      "chain:mention:watch:chain@example.com",
      "wat:participating:watch:wat@example.com",
    ]);
  });

  it("ignores users who are not members, and rejects unknown events and projects", async () => {
    expect(await resolve("close_issue", ["outsider"], ["outsider"])).toEqual([
      "chain:watch:watch:chain@example.com",
      "wat:watch:watch:wat@example.com",
    ]);
    const bad = await client
      .resolveRecipients(
        { projectId: project.id, event: "new_thing", participantUserIds: [], mentionedUserIds: [] },
        { requestId: "r" },
      )
      .catch((e: AppError) => e);
    expect(bad).toMatchObject({ code: "INVALID_ARGUMENT", reason: "INVALID_EVENT" });
    const missing = await client
      .resolveRecipients(
        { projectId: 999999, event: "new_note", participantUserIds: [], mentionedUserIds: [] },
        { requestId: "r" },
      )
      .catch((e: AppError) => e);
    expect(missing).toMatchObject({ code: "NOT_FOUND", message: "404 Project Not Found" });
  });
});
