import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@tocsin/core";
import { until } from "@tocsin/testing";
import { afterEach, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { bootAlert, bootAuth, bootGateway } from "./harness.js";
import { seedProject, seedUser } from "./seed.js";
import { rawPost } from "./webhook-client.js";

const ADMIN = "faults-admin-token-0123456789";

/** auth, alert and gateway with one active HTTP integration, each stoppable on its own. */
async function boot() {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-webhook-faults-"));
  const logger = silentLogger();
  const base = { LOG_LEVEL: "silent", ADMIN_TOKEN: ADMIN, SECRET_KEY: "faults-secret-0123456789abcdef" };
  const auth = await bootAuth({ ...base, AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dir, "auth") }, { logger });
  const alert = await bootAlert(
    { ...base, AUTH_SERVICE_ADDR: auth.address, ALERT_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dir, "alert") },
    { logger },
  );
  const gateway = await bootGateway(
    {
      ...base,
      PORT: "0",
      AUTH_SERVICE_ADDR: auth.address,
      ALERT_SERVICE_ADDR: alert.address,
      SETTINGS_SERVICE_ADDR: "127.0.0.1:1",
    },
    { logger },
  );
  const user = await seedUser(gateway.url, ADMIN, { username: "ops" });
  const project = await seedProject(gateway.url, user.token, { path: "svc" });
  const created = await api(gateway.url, user.token).post(`/api/v4/projects/${project.id}/alert_management/http_integrations`, {
    name: "Main",
    active: true,
  });
  const path = new URL(created.body.url).pathname;
  const headers = { authorization: `Bearer ${created.body.token}` };
  const post = () => rawPost(gateway.url, path, JSON.stringify({ title: "x" }), headers);
  return {
    post,
    stopAuth: () => auth.stop(),
    stopAlert: () => alert.stop(),
    async stopAll() {
      await gateway.stop();
      await alert.stop().catch(() => undefined);
      await auth.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A dependency down behind the webhook: 503 with Retry-After, never 202. */
describe("webhook receiver when a dependency is down", () => {
  let system: Awaited<ReturnType<typeof boot>> | undefined;
  afterEach(async () => {
    await system?.stopAll();
    system = undefined;
  });

  it("alert-service down → 503 with Retry-After", async () => {
    system = await boot();
    // Warm the endpoint cache: the credential check itself no longer needs auth-service.
    await system.post();
    await system.stopAlert();
    const res = await system.post();
    expect(res.status).toBe(503);
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
    expect(typeof res.body.message).toBe("string");
  });

  it("auth-service down → 503 with Retry-After: a cached answer is not trusted without the watch", async () => {
    system = await boot();
    await system.post();
    await system.stopAuth();
    // The watch stream notices the loss and the cache stops answering: wait for that, then look.
    const post = system.post;
    const res = await until(async () => {
      const r = await post();
      return r.status === 503 ? r : undefined;
    });
    expect(res.status).toBe(503);
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
  });
});
