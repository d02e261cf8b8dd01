import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppError, type CallContext, silentLogger } from "@tocsin/core";
import { createClient } from "@tocsin/grpc";
import { alertV1, authV1 } from "@tocsin/proto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bootAlert, bootAuth } from "./harness.js";

/**
 * Integration management over gRPC, as internal services call it: real auth-service, real
 * alert-service, on the embedded store and on MongoDB (FerretDB).
 */
const mongoUrl = inject("mongoUrl");
if (!mongoUrl) console.warn("[alert-integrations-grpc] MongoDB-protocol server unavailable: the MongoDB variant is SKIPPED");

const backends: Array<[string, Record<string, string>]> = [["sqlite", {}]];
if (mongoUrl) backends.push(["mongodb", { MONGO_URL: mongoUrl }]);

describe.each(backends)("AlertService integration RPCs over gRPC (%s)", (_name, extraEnv) => {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-alert-grpc-"));
  const suffix = Math.random().toString(36).slice(2, 8);
  let stops: Array<() => Promise<void>> = [];
  let alert: ReturnType<typeof createClient<typeof alertV1.AlertServiceService>>;
  let auth: ReturnType<typeof createClient<typeof authV1.AuthServiceService>>;
  let projectId = 0;
  let maintainer: CallContext;
  let developer: CallContext;
  let stranger: CallContext;
  const internal: CallContext = { requestId: "grpc-test" };

  beforeAll(async () => {
    const logger = silentLogger();
    const base = { LOG_LEVEL: "silent", SECRET_KEY: "grpc-test-secret-0123456789", ...extraEnv };
    const a = await bootAuth(
      { ...base, AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dir, "auth"), MONGO_DB: `tocsin_t_auth_${suffix}` },
      { logger },
    );
    const s = await bootAlert(
      {
        ...base,
        AUTH_SERVICE_ADDR: a.address,
        ALERT_SERVICE_ADDR: "127.0.0.1:0",
        DATA_DIR: join(dir, "alert"),
        MONGO_DB: `tocsin_t_alert_${suffix}`,
        EXTERNAL_URL: "https://tocsin.example.com/",
      },
      { logger },
    );
    stops = [() => s.stop(), () => a.stop()];
    auth = createClient(authV1.AuthServiceService, { target: "auth", address: a.address });
    alert = createClient(alertV1.AlertServiceService, { target: "alert", address: s.address });
    const user = async (username: string) =>
      (await auth.createUser({ username, email: `${username}@example.com`, name: username, admin: false }, internal)).user?.id ??
      0;
    const [m, d, x] = [await user("m"), await user("d"), await user("x")];
    maintainer = { requestId: "r", principal: { userId: m } };
    developer = { requestId: "r", principal: { userId: d } };
    stranger = { requestId: "r", principal: { userId: x } };
    const project = (await auth.createProject({ name: "Web", path: "web", namespaceId: 0 }, maintainer)).project;
    projectId = project?.id ?? 0;
    await auth.addProjectMember(
      { projectIdOrPath: String(projectId), userId: d, accessLevel: authV1.AccessLevel.ACCESS_LEVEL_DEVELOPER },
      maintainer,
    );
  });
  afterAll(async () => {
    alert?.close();
    auth?.close();
    for (const stop of stops) await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const create = (ctx: CallContext, name: string) =>
    alert.createHttpIntegration(
      {
        projectIdOrPath: String(projectId),
        name,
        active: true,
        payloadExampleJson: undefined,
        payloadAttributeMappingsJson: undefined,
      },
      ctx,
    );

  it("creates, reads, updates, resets and deletes as the project's maintainer", async () => {
    const { integration } = await create(maintainer, "Alertmanager");
    expect(integration).toMatchObject({
      name: "Alertmanager",
      type: "http",
      active: true,
      payloadExampleJson: "{}",
      payloadAttributeMappingsJson: "{}",
    });
    expect(integration?.url).toBe(
      `https://tocsin.example.com/m/web/alerts/notify/alertmanager/${integration?.endpointIdentifier}.json`,
    );
    const id = integration?.id ?? 0;
    const got = await alert.getHttpIntegration({ projectIdOrPath: "m/web", integrationId: id }, maintainer);
    expect(got.integration?.token).toBe(integration?.token);
    const updated = await alert.updateHttpIntegration(
      {
        projectIdOrPath: String(projectId),
        integrationId: id,
        name: undefined,
        active: false,
        payloadExampleJson: undefined,
        payloadAttributeMappingsJson: undefined,
      },
      maintainer,
    );
    expect(updated).toMatchObject({ integration: { active: false, name: "Alertmanager" }, mappingCleared: false });
    const keys = await auth.listIntegrationKeys({ projectId }, internal);
    expect(keys.keys.find((k) => k.integrationId === id)?.active).toBe(false);
    const reset = await alert.resetHttpIntegrationToken({ projectIdOrPath: String(projectId), integrationId: id }, maintainer);
    expect(reset.integration?.token).not.toBe(integration?.token);
    await alert.deleteHttpIntegration({ projectIdOrPath: String(projectId), integrationId: id }, maintainer);
    expect((await auth.listIntegrationKeys({ projectId }, internal)).keys.find((k) => k.integrationId === id)).toBeUndefined();
    const gone = await alert
      .getHttpIntegration({ projectIdOrPath: String(projectId), integrationId: id }, maintainer)
      .catch((e: unknown) => e);
    expect(gone).toMatchObject({ code: "NOT_FOUND", message: "404 Integration Not Found" });
  });

  it("answers with the same rules as REST: roles, visibility, tier", async () => {
    const denied = (await create(developer, "x").catch((e: unknown) => e)) as AppError;
    expect(denied).toBeInstanceOf(AppError);
    expect(denied).toMatchObject({ code: "PERMISSION_DENIED", message: "403 Forbidden" });
    const hidden = (await create(stranger, "x").catch((e: unknown) => e)) as AppError;
    expect(hidden).toMatchObject({ code: "NOT_FOUND", reason: "PROJECT_NOT_FOUND", message: "404 Project Not Found" });
    await create(maintainer, "First");
    const second = (await create(maintainer, "Second").catch((e: unknown) => e)) as AppError;
    expect(second).toMatchObject({ code: "PERMISSION_DENIED", reason: "MULTIPLE_INTEGRATIONS_NOT_SUPPORTED" });
    // A trusted internal call (no principal) sees every project.
    const list = await alert.listIntegrations({ projectIdOrPath: String(projectId) }, internal);
    expect(list.integrations.map((i) => i.name)).toEqual(["First"]);
  });

  it("parses payload fields only on Premium", async () => {
    const err = (await alert
      .parsePayloadFields({ projectIdOrPath: String(projectId), payloadExampleJson: '{"a":"b"}' }, maintainer)
      .catch((e: unknown) => e)) as AppError;
    expect(err).toMatchObject({ code: "PERMISSION_DENIED", reason: "CUSTOM_MAPPING_UNAVAILABLE" });
  });
});
