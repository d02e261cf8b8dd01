import { createRequire } from "node:module";
import { credentials, loadPackageDefinition } from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { AppError, silentLogger } from "@tocsin/core";
import { PROTO_FILES, settingsV1 } from "@tocsin/proto";
import { protoPath } from "grpc-health-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import { createGrpcServer, type ServiceHandlers } from "./server.js";

const def = settingsV1.SettingsServiceService;
const setting = (level: string): settingsV1.NotificationSetting => ({
  level,
  notificationEmail: "a@example.com",
  events: undefined,
  newEpicApplies: false,
});

const handlers: ServiceHandlers<typeof def> = {
  async getGlobalSetting(req, ctx) {
    return { setting: setting(`user-${req.userId}-req-${ctx.requestId}-by-${ctx.principal?.userId ?? "system"}`) };
  },
  async updateGlobalSetting(req) {
    throw new AppError("INVALID_ARGUMENT", "INVALID_LEVEL", `'${req.level}' is not a valid level`, {
      fields: { level: ["is invalid"] },
    });
  },
  async getSourceSetting() {
    throw new Error("boom: secret detail");
  },
  async updateSourceSetting() {
    return { setting: setting("global") };
  },
  async resolveRecipients() {
    return { recipients: [] };
  },
  async resolveAlertRecipients() {
    return { recipients: [] };
  },
  async listNotificationEmails() {
    return { emails: [] };
  },
};

describe("grpc server and client, over the wire", () => {
  const server = createGrpcServer({
    logger: silentLogger(),
    protoFiles: [PROTO_FILES.settings],
    serviceNames: ["settings.v1.SettingsService"],
  });
  let address = "";
  beforeAll(async () => {
    server.add(def, handlers);
    const port = await server.listen("127.0.0.1:0");
    address = `127.0.0.1:${port}`;
    server.setServing(true);
  });
  afterAll(() => server.shutdown(1000));

  it("carries request id and principal through metadata", async () => {
    const client = createClient(def, { target: "settings", address });
    const res = await client.getGlobalSetting({ userId: 7 }, { requestId: "req-1", principal: { userId: 3 } });
    expect(res.setting?.level).toBe("user-7-req-req-1-by-3");
    client.close();
  });

  it("turns an AppError into a status and back, with reason and fields", async () => {
    const client = createClient(def, { target: "settings", address });
    const err = await client
      .updateGlobalSetting({ userId: 1, level: "nope", events: undefined }, { requestId: "r" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: "INVALID_ARGUMENT", reason: "INVALID_LEVEL", message: "'nope' is not a valid level" });
    expect((err as AppError).fields).toEqual({ level: ["is invalid"] });
    client.close();
  });

  it("hides unexpected failures behind INTERNAL", async () => {
    const client = createClient(def, { target: "settings", address });
    const err = (await client
      .getSourceSetting({ userId: 1, sourceType: 1, sourceIdOrPath: "1" }, { requestId: "r" })
      .catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe("INTERNAL");
    expect(err.message).not.toContain("secret");
    client.close();
  });

  it("reports an unreachable service as UNAVAILABLE with a retry hint", async () => {
    const client = createClient(def, { target: "settings", address: "127.0.0.1:1", timeoutMs: 500, readRetries: 0 });
    const err = (await client.getGlobalSetting({ userId: 1 }, { requestId: "r" }).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe("UNAVAILABLE");
    expect(err.reason).toBe("SETTINGS_UNAVAILABLE");
    expect(err.retryAfterSeconds).toBeGreaterThan(0);
    client.close();
  });

  it("serves grpc.health.v1", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: dynamically loaded client
    const pkg = loadPackageDefinition(loadSync(protoPath)) as any;
    const health = new pkg.grpc.health.v1.Health(address, credentials.createInsecure());
    const status = await new Promise<number | undefined>((resolve, reject) =>
      health.check({ service: "settings.v1.SettingsService" }, (err: Error | null, res?: { status: number }) =>
        err ? reject(err) : resolve(res?.status),
      ),
    );
    expect(status).toBe(1); // SERVING
    health.close();
  });

  it("serves reflection (grpc.reflection.v1) listing the service", async () => {
    const require = createRequire(import.meta.url);
    const reflectionProto = require.resolve("@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto");
    // biome-ignore lint/suspicious/noExplicitAny: dynamically loaded client
    const pkg = loadPackageDefinition(loadSync(reflectionProto)) as any;
    const client = new pkg.grpc.reflection.v1.ServerReflection(address, credentials.createInsecure());
    const call = client.ServerReflectionInfo();
    const services = await new Promise<string[]>((resolve, reject) => {
      call.on("data", (res: { listServicesResponse?: { service: Array<{ name: string }> } }) => {
        resolve(res.listServicesResponse?.service.map((s) => s.name) ?? []);
        call.end();
      });
      call.on("error", reject);
      call.write({ listServices: "*" });
    });
    expect(services).toContain("settings.v1.SettingsService");
    client.close();
  });
});

describe("client retries", () => {
  let calls = 0;
  const server = createGrpcServer({ logger: silentLogger(), protoFiles: [PROTO_FILES.settings], serviceNames: [] });
  let address = "";
  beforeAll(async () => {
    server.add(def, {
      ...handlers,
      async getGlobalSetting() {
        calls += 1;
        await new Promise((r) => setTimeout(r, 200));
        throw new AppError("UNAVAILABLE", "BUSY", "busy");
      },
    });
    address = `127.0.0.1:${await server.listen("127.0.0.1:0")}`;
  });
  afterAll(() => server.shutdown(1000));

  it("share one overall deadline instead of restarting the timeout per attempt", async () => {
    // Each attempt takes at least 200 ms; with a 500 ms deadline at most two fit, whatever the retry count.
    const client = createClient(def, { target: "settings", address, timeoutMs: 500, readRetries: 10 });
    const err = (await client.getGlobalSetting({ userId: 1 }, { requestId: "r" }).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe("UNAVAILABLE");
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(calls).toBeLessThanOrEqual(2);
    client.close();
  });

  it("end when the caller's deadline does, even with the client's own timeout longer", async () => {
    calls = 0;
    const client = createClient(def, { target: "settings", address, timeoutMs: 30_000, readRetries: 10 });
    const ctx = { requestId: "r", deadlineMs: Date.now() + 500 };
    const err = (await client.getGlobalSetting({ userId: 1 }, ctx).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe("UNAVAILABLE");
    expect(calls).toBeLessThanOrEqual(2);
    client.close();
  });
});
