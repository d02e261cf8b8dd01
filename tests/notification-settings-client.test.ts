import { Gitlab } from "@gitbeaker/rest";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { type SettingsSystem, startSettingsSystem } from "./notification-settings-system.js";
import { seedGroup, seedProject, seedUser } from "./seed.js";

describe("a real GitLab client (@gitbeaker/rest) against the gateway, unchanged", () => {
  let sys: SettingsSystem;
  let gl: InstanceType<typeof Gitlab>;
  let groupPath: string;
  let projectPath: string;
  let groupId: number;

  beforeAll(async () => {
    sys = await startSettingsSystem();
    const carol = await seedUser(sys.url, sys.adminToken, { username: "carol" });
    const group = await seedGroup(sys.url, carol.token, { path: "carols" });
    const project = await seedProject(sys.url, carol.token, { path: "web", namespaceId: group.id });
    groupId = group.id;
    groupPath = group.full_path;
    projectPath = project.path_with_namespace;
    gl = new Gitlab({ host: sys.url, token: carol.token });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("shows and edits the global setting", async () => {
    expect(await gl.NotificationSettings.show()).toEqual({ level: "participating", notification_email: "carol@example.com" });
    const edited = (await gl.NotificationSettings.edit({
      level: "custom",
      newNote: true,
      movedProject: true,
    } as never)) as never as {
      level: string;
      events: Record<string, boolean>;
    };
    expect(edited.level).toBe("custom");
    expect(edited.events).toMatchObject({ new_note: true, moved_project: true, new_issue: false });
  });

  it("shows and edits group and project settings by id and by path", async () => {
    expect(await gl.NotificationSettings.show({ groupId })).toEqual({ level: "global" });
    expect(await gl.NotificationSettings.edit({ groupId: groupPath, level: "watch" })).toEqual({ level: "watch" });
    expect(await gl.NotificationSettings.show({ groupId: groupPath })).toEqual({ level: "watch" });
    expect(await gl.NotificationSettings.edit({ projectId: projectPath, level: "mention" })).toEqual({ level: "mention" });
    expect(await gl.NotificationSettings.show({ projectId: projectPath })).toEqual({ level: "mention" });
  });

  it("surfaces GitLab's error bodies", async () => {
    const err = (await gl.NotificationSettings.show({ projectId: "nobody/nothing" }).catch((e: unknown) => e)) as {
      cause?: { response?: { status: number }; description?: string };
    };
    expect(err.cause?.response?.status).toBe(404);
    expect(err.cause?.description).toBe("404 Project Not Found");
    const bad = (await gl.NotificationSettings.edit({ level: "Watch" }).catch((e: unknown) => e)) as {
      cause?: { description?: string };
    };
    expect(bad.cause?.description).toBe("'Watch' is not a valid level");
  });

  it("keeps settings across a restart of settings-service (SQLite in DATA_DIR)", async () => {
    await sys.restartSettings();
    expect(await gl.NotificationSettings.show({ groupId: groupPath })).toEqual({ level: "watch" });
    expect(((await gl.NotificationSettings.show()) as { level: string }).level).toBe("custom");
  });
});

const mongoUrl = inject("mongoUrl");
describe.skipIf(!mongoUrl)("settings on MongoDB (FerretDB) survive a restart", () => {
  let sys: SettingsSystem;
  beforeAll(async () => {
    sys = await startSettingsSystem({ MONGO_URL: mongoUrl, MONGO_DB: `tocsin_settings_e2e_${Date.now().toString(36)}` });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("writes, restarts, reads", async () => {
    const dave = await seedUser(sys.url, sys.adminToken, { username: "dave" });
    const as = api(sys.url, dave.token);
    expect((await as.put("/api/v4/notification_settings?level=custom&new_issue=true")).status).toBe(200);
    await sys.restartSettings();
    const res = await as.get("/api/v4/notification_settings");
    expect(res.body.level).toBe("custom");
    expect(res.body.events.new_issue).toBe(true);
  });
});
