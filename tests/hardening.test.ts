import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@tocsin/core";
import { redisServerFor, startOwnRedis, until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { bootAlert, bootAuth, bootGateway, type RunningSystem, startSystem } from "./harness.js";
import { seedGroup, seedProject, seedUser } from "./seed.js";

/** Defects found by an adversarial run (issue 12), each with the test that failed before its fix. */
describe("names with control characters", () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem();
  });
  afterAll(() => system.stop());

  it.each(["bad\u0000name", "line\nbreak", "tab\there", "del\u007f", "c1\u0085"])(
    "refuses %j as a user, group, project and integration name",
    async (name) => {
      const admin = api(system.url, system.adminToken);
      const user = await admin.post("/api/v4/users", { username: `u${Date.now()}`, email: `u${Date.now()}@example.com`, name });
      expect(user.status).toBe(400);
      expect(JSON.stringify(user.body)).toContain("control characters");
      const group = await admin.post("/api/v4/groups", { name, path: `g${Date.now()}` });
      expect(group.status).toBe(400);
      const project = await admin.post("/api/v4/projects", { name, path: `p${Date.now()}` });
      expect(project.status).toBe(400);
      const ok = await seedProject(system.url, system.adminToken, { path: `ok${Date.now()}` });
      const integration = await admin.post(`/api/v4/projects/${ok.id}/alert_management/http_integrations`, {
        name,
        active: true,
      });
      expect(integration.status).toBe(400);
      expect(JSON.stringify(integration.body)).toContain("control characters");
    },
  );

  it("still accepts ordinary Unicode names", async () => {
    const group = await seedGroup(system.url, system.adminToken, { path: `uni${Date.now()}`, name: "Équipe Ops – 東京 🚨" });
    expect(group.name).toBe("Équipe Ops – 東京 🚨");
  });
});

describe.skipIf(!redisServerFor("readiness follows Redis"))("/-/readiness follows Redis", () => {
  it("answers 503 once Redis is down, and 200 again once it is back", async () => {
    const redis = await startOwnRedis();
    if (!redis) throw new Error("redis-server did not start");
    const system = await startSystem({ env: { REDIS_URL: redis.url } });
    try {
      await until(async () => (await fetch(`${system.url}/-/readiness`)).status === 200, 20_000, 100);
      await redis.stop();
      // A condition, not a stopwatch: readiness turns 503 (the services re-check their health every second).
      await until(async () => (await fetch(`${system.url}/-/readiness`)).status === 503, 10_000, 50);
      // Back up where it was: readiness follows it up again.
      const again = await startOwnRedis(Number(new URL(redis.url).port));
      await until(async () => (await fetch(`${system.url}/-/readiness`)).status === 200, 10_000, 100);
      await system.stop();
      await again?.stop();
    } finally {
      await redis.stop();
    }
  }, 60_000);
});

const ADMIN = "hardening-admin-token-0123456789";

describe("graceful stop of the gateway", () => {
  it("answers every request it accepted on busy keep-alive connections, then closes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tocsin-drain-"));
    const logger = silentLogger();
    const base = { LOG_LEVEL: "silent", ADMIN_TOKEN: ADMIN, SECRET_KEY: "drain-secret-0123456789abcdef" };
    const auth = await bootAuth({ ...base, AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dir, "auth") }, { logger });
    const alert = await bootAlert(
      { ...base, AUTH_SERVICE_ADDR: auth.address, ALERT_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dir, "alert") },
      { logger },
    );
    const gatewayEnv = {
      ...base,
      PORT: "0",
      AUTH_SERVICE_ADDR: auth.address,
      ALERT_SERVICE_ADDR: alert.address,
      SETTINGS_SERVICE_ADDR: "127.0.0.1:1",
    };
    const gateway = await bootGateway(gatewayEnv, { logger });
    const user = await seedUser(gateway.url, ADMIN, { username: "drainer" });
    const project = await seedProject(gateway.url, user.token, { path: "drain" });
    const created = await api(gateway.url, user.token).post(`/api/v4/projects/${project.id}/alert_management/http_integrations`, {
      name: "Main",
      active: true,
    });
    const url = new URL(new URL(created.body.url).pathname, gateway.url);
    const answers: number[] = [];
    const failures: string[] = [];
    let stopRequested = false;
    // Eight keep-alive connections, each posting back to back until the gateway refuses.
    const loops = Array.from({ length: 8 }, async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let i = 0; i < 10_000; i++) {
          const outcome = await post(agent, url, created.body.token as string);
          if (typeof outcome === "number") answers.push(outcome);
          else {
            failures.push(outcome);
            if (stopRequested) return;
          }
        }
      } finally {
        agent.destroy();
      }
    });
    await until(() => answers.length >= 40, 20_000);
    stopRequested = true;
    await gateway.stop();
    await Promise.all(loops);
    // Every alert that was queued got its 202: the store holds exactly as many alerts as answers.
    const second = await bootGateway(gatewayEnv, { logger });
    try {
      const accepted = answers.filter((s) => s === 202).length;
      expect(answers.every((s) => s === 202)).toBe(true);
      const total = await until(async () => {
        const res = await api(second.url, user.token).get(`/api/v4/projects/${project.id}/alert_management/alerts?per_page=1`);
        return Number(res.headers.get("x-total")) === accepted ? accepted : false;
      }, 20_000);
      expect(total).toBe(accepted);
    } finally {
      await second.stop();
      await alert.stop();
      await auth.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** One post on `agent`: the status, or the error's code when there was no answer. */
function post(agent: Agent, url: URL, token: string): Promise<number | string> {
  return new Promise((resolve) => {
    const body = JSON.stringify({ title: "drain" });
    const req = request(
      url,
      { method: "POST", agent, headers: { "content-type": "application/json", authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", () => resolve("ERESPONSE"));
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end(body);
  });
}
