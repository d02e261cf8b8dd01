import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CallContext, ConfigError } from "@tocsin/core";
import { createClient } from "@tocsin/grpc";
import { authV1 } from "@tocsin/proto";
import { loadConfig as loadSettingsConfig } from "@tocsin/settings-service";
import { freePort } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootAuth } from "./harness.js";

/**
 * Service addresses name several replicas (PRODUCT.md section 1): a comma-separated list or
 * `dns:///host:port`, balanced round-robin by the client, and a replica that dies drops out of
 * the rotation. Each replica here has its own embedded store holding a user only it knows, so
 * the answers show which replica served each call.
 */
const ADMIN = "replica-addresses-admin-token-0123456789";
const asRoot: CallContext = { requestId: "replicas", principal: { userId: 1 } };
type Replica = Awaited<ReturnType<typeof bootAuth>>;

describe("service addresses with several replicas", () => {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-replicas-"));
  const replicas: Replica[] = [];
  const ports: number[] = [];

  beforeAll(async () => {
    for (const name of ["alpha", "beta"]) {
      const port = await freePort();
      ports.push(port);
      const replica = await bootAuth({
        LOG_LEVEL: "silent",
        ADMIN_TOKEN: ADMIN,
        SECRET_KEY: "replica-addresses-secret-0123456789",
        AUTH_SERVICE_ADDR: `127.0.0.1:${port}`,
        DATA_DIR: join(dir, name),
      });
      replicas.push(replica);
      const direct = createClient(authV1.AuthServiceService, { target: "auth", address: replica.address });
      await direct.createUser({ username: name, email: `${name}@example.com`, name, admin: false }, asRoot);
      direct.close();
    }
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** The non-root usernames the replica that answered knows: ["alpha"] or ["beta"]. */
  const whoAnswers = async (client: ReturnType<typeof createClient<typeof authV1.AuthServiceService>>) => {
    const { users } = await client.listUsers({ search: "", page: { page: 1, perPage: 20 } }, asRoot);
    return users.map((u) => u.username).filter((u) => u !== "root");
  };

  it("spreads calls over a comma-separated list and fails over when a replica dies", async () => {
    const client = createClient(authV1.AuthServiceService, {
      target: "auth",
      address: ports.map((p) => `127.0.0.1:${p}`).join(","),
    });
    try {
      await client.waitForReady(10_000);
      const seen = new Set<string>();
      // Round-robin: both replicas answer once both connections are up.
      for (let i = 0; i < 40 && seen.size < 2; i++) for (const u of await whoAnswers(client)) seen.add(u);
      expect([...seen].sort()).toEqual(["alpha", "beta"]);

      await replicas[0]?.stop();
      // Every call still succeeds: the dead replica leaves the rotation (a read that hit it is
      // retried on the other).
      const after = [];
      for (let i = 0; i < 10; i++) after.push(...(await whoAnswers(client)));
      expect(new Set(after)).toEqual(new Set(["beta"]));
    } finally {
      client.close();
    }
  });

  it("resolves dns:///host:port", async () => {
    const client = createClient(authV1.AuthServiceService, { target: "auth", address: `dns:///localhost:${ports[1]}` });
    try {
      expect(await whoAnswers(client)).toEqual(["beta"]);
    } finally {
      client.close();
    }
  });

  it("listens on LISTEN_ADDR, which a list or dns:/// address of the service itself requires", () => {
    const base = { AUTH_SERVICE_ADDR: "127.0.0.1:50051" };
    const list = { ...base, SETTINGS_SERVICE_ADDR: "10.0.0.1:50053,10.0.0.2:50053" };
    expect(() => loadSettingsConfig(list)).toThrow(ConfigError);
    expect(() => loadSettingsConfig(list)).toThrow(/LISTEN_ADDR: required when SETTINGS_SERVICE_ADDR names several replicas/);
    expect(loadSettingsConfig({ ...list, LISTEN_ADDR: "0.0.0.0:50053" }).listenAddr).toBe("0.0.0.0:50053");
    expect(
      loadSettingsConfig({ ...base, SETTINGS_SERVICE_ADDR: "dns:///settings:50053", LISTEN_ADDR: "0.0.0.0:50053" }),
    ).toMatchObject({
      listenAddr: "0.0.0.0:50053",
    });
    expect(loadSettingsConfig(base).listenAddr).toBe("127.0.0.1:50053");
    // Names in a list are refused: a name that stands for several replicas is what dns:/// is for.
    expect(() => loadSettingsConfig({ ...base, AUTH_SERVICE_ADDR: "auth-1:50051,auth-2:50051" })).toThrow(/AUTH_SERVICE_ADDR/);
  });
});
