import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AppError, type CallContext, ConfigError, silentLogger, systemClock } from "@tocsin/core";
import { createClient } from "@tocsin/grpc";
import { authV1 } from "@tocsin/proto";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";
import { createAuthService } from "./service.js";
import { SqliteAuthStore } from "./store/sqlite-auth-store.js";

const sys: CallContext = { requestId: "restart" };
const as = (userId: number): CallContext => ({ requestId: "restart", principal: { userId } });

describe("restart on the SQLite store", () => {
  const dir = mkdtempSync(join(tmpdir(), "auth-restart-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const boot = async (adminToken: string) => {
    const service = await createAuthService(
      loadConfig({ AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: dir, ADMIN_TOKEN: adminToken }),
      { logger: silentLogger(), clock: systemClock },
    );
    const client = createClient(authV1.AuthServiceService, { target: "auth", address: service.address });
    return {
      client,
      async stop() {
        client.close();
        await service.stop();
      },
    };
  };

  const bootstrapTokens = async () => {
    const store = new SqliteAuthStore(join(dir, "auth.db"));
    const root = await store.findUserByUsername("root");
    const tokens = root ? await store.listTokensByName(root.id, "bootstrap") : [];
    await store.close();
    return tokens;
  };

  it("keeps users, projects, keys and the admin token; the bootstrap is idempotent", async () => {
    const first = await boot("first-admin-token-0123");
    const rootId = (await first.client.authenticateToken({ token: "first-admin-token-0123" }, sys)).principal?.userId ?? 0;
    const user = (
      await first.client.createUser({ username: "keep", email: "keep@example.com", name: "K", admin: false }, as(rootId))
    ).user;
    const project = (await first.client.createProject({ name: "kept", path: "", namespaceId: 0 }, as(user?.id ?? 0))).project;
    const key = (
      await first.client.issueIntegrationKey({ projectId: project?.id ?? 0, integrationId: 7, type: 1, active: true }, sys)
    ).key;
    await first.stop();

    // SECRET_KEY was unset: a key file was generated once, private to the owner.
    const secretFile = join(dir, "secret.key");
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    const secret = readFileSync(secretFile, "utf8");

    const second = await boot("first-admin-token-0123");
    const again = await second.client.authenticateToken({ token: "first-admin-token-0123" }, sys);
    expect(again.principal).toMatchObject({ userId: rootId, isAdmin: true });
    expect((await second.client.getUser({ id: user?.id ?? 0 }, sys)).user?.username).toBe("keep");
    expect((await second.client.getProject({ idOrPath: "keep/kept" }, as(user?.id ?? 0))).project?.id).toBe(project?.id);
    const keys = (await second.client.listIntegrationKeys({ projectId: project?.id ?? 0 }, sys)).keys;
    expect(keys.map((k) => k.token)).toEqual([key?.token]);
    await second.stop();
    expect(readFileSync(secretFile, "utf8")).toBe(secret);
    expect(await bootstrapTokens()).toHaveLength(1);

    const third = await boot("second-admin-token-4567");
    expect((await third.client.authenticateToken({ token: "second-admin-token-4567" }, sys)).principal?.userId).toBe(rootId);
    const old = (await third.client
      .authenticateToken({ token: "first-admin-token-0123" }, sys)
      .catch((e: unknown) => e)) as AppError;
    expect(old.reason).toBe("TOKEN_REVOKED");
    await third.stop();
    const tokens = await bootstrapTokens();
    expect(tokens.map((t) => t.revoked)).toEqual([true, false]);
  });
});

describe("shutdown", () => {
  it("ends open WatchIntegrationKeys streams cleanly when the server stops", async () => {
    const dir = mkdtempSync(join(tmpdir(), "auth-stop-"));
    const service = await createAuthService(
      loadConfig({ AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: dir, SECRET_KEY: "secret-key-for-tests-0123456789" }),
      { logger: silentLogger(), clock: systemClock },
    );
    const client = createClient(authV1.AuthServiceService, { target: "auth", address: service.address });
    const stream = client.stream("watchIntegrationKeys", {}, sys);
    // The first message is written once the subscription is in place: the stream is open.
    const opened = new Promise<void>((resolve) => stream.once("data", () => resolve()));
    const ended = new Promise<string>((resolve) => {
      stream.on("end", () => resolve("end"));
      stream.on("error", (err) => resolve(`error: ${err.message}`));
      stream.on("data", () => {});
    });
    await opened;
    // A stream still open at the bounded shutdown would be cut (an error), not ended.
    await service.stop();
    expect(await ended).toBe("end");
    client.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("configuration", () => {
  it("names every bad variable in one error", () => {
    let err: unknown;
    try {
      loadConfig({ AUTH_SERVICE_ADDR: "nope", MONGO_URL: "http://x", SECRET_KEY: "short" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    for (const name of ["AUTH_SERVICE_ADDR", "MONGO_URL", "SECRET_KEY"]) expect(message).toContain(name);
    expect(message).not.toContain("short");
  });

  it("reads defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ listenAddr: "127.0.0.1:50051", dataDir: "./data", logLevel: "info" });
    expect(config.adminToken).toBeUndefined();
  });

  it("bootstraps root from ADMIN_PASSWORD alone, idempotently; a new value ends root's sessions", async () => {
    const pwDir = mkdtempSync(join(tmpdir(), "auth-restart-password-"));
    const bootWith = async (password: string) => {
      const service = await createAuthService(
        loadConfig({ AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: pwDir, ADMIN_PASSWORD: password }),
        { logger: silentLogger(), clock: systemClock },
      );
      const client = createClient(authV1.AuthServiceService, { target: "auth", address: service.address });
      return {
        client,
        async stop() {
          client.close();
          await service.stop();
        },
      };
    };
    try {
      const first = await bootWith("first-root-password");
      const session = await first.client.createSession({ login: "root", password: "first-root-password" }, sys);
      expect(session.user).toMatchObject({ username: "root", isAdmin: true, hasPassword: true });
      await first.stop();

      const second = await bootWith("first-root-password");
      // Same value: nothing rewritten, the session lives on.
      expect((await second.client.authenticateSession({ sessionToken: session.sessionToken }, sys)).user?.username).toBe("root");
      await second.stop();

      const third = await bootWith("second-root-password");
      const ended = (await third.client
        .authenticateSession({ sessionToken: session.sessionToken }, sys)
        .catch((e: unknown) => e)) as AppError;
      expect(ended.code).toBe("UNAUTHENTICATED");
      const refused = (await third.client
        .createSession({ login: "root", password: "first-root-password" }, sys)
        .catch((e: unknown) => e)) as AppError;
      expect(refused.message).toBe("Invalid login or password.");
      await third.client.createSession({ login: "admin@example.com", password: "second-root-password" }, sys);
      await third.stop();
    } finally {
      rmSync(pwDir, { recursive: true, force: true });
    }
  });
});
