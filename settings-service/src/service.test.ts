import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppError, ConfigError, type RunningService, silentLogger, systemClock } from "@tocsin/core";
import { createClient, type PromiseClient } from "@tocsin/grpc";
import { settingsV1 } from "@tocsin/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";
import { FakeDirectory } from "./domain/fake-directory.js";
import { createSettingsService } from "./service.js";

const { SourceType } = settingsV1;
const user = { requestId: "r1", principal: { userId: 1 } };

describe("settings-service over gRPC (fake directory, SQLite file)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "tocsin-settings-"));
  const directory = new FakeDirectory();
  const env = { SETTINGS_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: dataDir, LOG_LEVEL: "silent" };
  let service: RunningService;
  let client: PromiseClient<typeof settingsV1.SettingsServiceService>;

  beforeAll(async () => {
    directory.emails.set(1, [{ email: "one@example.com", confirmed: true, primary: true }]);
    directory.addGroup(10, "grp", "ultimate", [1]);
    directory.addProject(100, "grp/app", [10], [1]);
    directory.members.set(100, [
      { userId: 1, email: "one@example.com", accessLevel: 50, blocked: false },
      { userId: 2, email: "two@example.com", accessLevel: 30, blocked: false },
    ]);
    service = await createSettingsService(loadConfig(env), { logger: silentLogger(), clock: systemClock, directory });
    client = createClient(settingsV1.SettingsServiceService, { target: "settings", address: service.address });
  });
  afterAll(async () => {
    client.close();
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("reads and updates the global setting", async () => {
    const got = await client.getGlobalSetting({ userId: 1 }, user);
    expect(got.setting).toMatchObject({ level: "participating", notificationEmail: "one@example.com", newEpicApplies: false });
    const put = await client.updateGlobalSetting({ userId: 1, level: "custom", events: { newNote: true } }, user);
    expect(put.setting?.level).toBe("custom");
    expect(put.setting?.events?.newNote).toBe(true);
    expect(put.setting?.events?.newIssue).toBe(false);
  });

  it("reads and updates group and project settings by id or path", async () => {
    const g = await client.updateSourceSetting(
      { userId: 1, sourceType: SourceType.SOURCE_TYPE_GROUP, sourceIdOrPath: "grp", level: "custom", events: { newEpic: true } },
      user,
    );
    expect(g.setting).toMatchObject({ level: "custom", newEpicApplies: true, events: { newEpic: true } });
    const p = await client.getSourceSetting(
      { userId: 1, sourceType: SourceType.SOURCE_TYPE_PROJECT, sourceIdOrPath: "grp/app" },
      user,
    );
    expect(p.setting).toMatchObject({ level: "global", newEpicApplies: false });
  });

  it("carries the domain errors with reason and fields", async () => {
    const bad = await client.updateGlobalSetting({ userId: 1, level: "", events: undefined }, user).catch((e: AppError) => e);
    expect(bad).toMatchObject({ code: "INVALID_ARGUMENT", reason: "INVALID_LEVEL", message: "'' is not a valid level" });
    const email = await client
      .updateGlobalSetting({ userId: 1, notificationEmail: "x@y.z", events: undefined }, user)
      .catch((e: AppError) => e);
    expect(email).toBeInstanceOf(AppError);
    expect((email as AppError).fields).toEqual({ notification_email: ["must be an email you have verified"] });
    const missing = await client
      .getSourceSetting({ userId: 1, sourceType: SourceType.SOURCE_TYPE_GROUP, sourceIdOrPath: "nope" }, user)
      .catch((e: AppError) => e);
    expect(missing).toMatchObject({ code: "NOT_FOUND", reason: "GROUP_NOT_FOUND", message: "404 Group Not Found" });
    const kind = await client.getSourceSetting({ userId: 1, sourceType: 0, sourceIdOrPath: "1" }, user).catch((e: AppError) => e);
    expect(kind).toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("resolves recipients", async () => {
    const res = await client.resolveRecipients(
      { projectId: 100, event: "new_note", participantUserIds: [1, 2], mentionedUserIds: [] },
      { requestId: "r" },
    );
    // User 1's group setting (custom, new_note off) wins over its global one (custom, new_note on).
    expect(res.recipients).toEqual([
      { userId: 1, email: "one@example.com", level: "custom", reason: "participating" },
      { userId: 2, email: "two@example.com", level: "participating", reason: "participating" },
    ]);
    const bad = await client
      .resolveRecipients({ projectId: 100, event: "nope", participantUserIds: [], mentionedUserIds: [] }, { requestId: "r" })
      .catch((e: AppError) => e);
    expect(bad).toMatchObject({ code: "INVALID_ARGUMENT", reason: "INVALID_EVENT" });
  });

  it("keeps settings across a restart (SQLite file in DATA_DIR)", async () => {
    await service.stop();
    service = await createSettingsService(loadConfig(env), { logger: silentLogger(), clock: systemClock, directory });
    client.close();
    client = createClient(settingsV1.SettingsServiceService, { target: "settings", address: service.address });
    const got = await client.getGlobalSetting({ userId: 1 }, user);
    expect(got.setting?.level).toBe("custom");
  });
});

describe("configuration", () => {
  it("names every bad variable", () => {
    const err = (() => {
      try {
        loadConfig({ SETTINGS_SERVICE_ADDR: "nope", MONGO_URL: "http://x", LOG_LEVEL: "loud" });
      } catch (e) {
        return e;
      }
    })() as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain("SETTINGS_SERVICE_ADDR");
    expect(err.message).toContain("MONGO_URL");
    expect(err.message).toContain("LOG_LEVEL");
  });
  it("has defaults", () => {
    expect(loadConfig({})).toMatchObject({
      listenAddr: "127.0.0.1:50053",
      authServiceAddr: "127.0.0.1:50051",
      dataDir: "./data",
    });
  });
});
