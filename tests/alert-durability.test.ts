import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { silentLogger } from "@tocsin/core";
import { freePort, redisServerFor, until, waitForPort } from "@tocsin/testing";
import { afterEach, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { bootAuth, bootGateway } from "./harness.js";

/**
 * No accepted alert is lost: alert-service runs as a child process, is killed with SIGKILL while
 * alerts are being posted, and restarted; every alert that got 202 must then be stored. With the
 * queue's Redis unreachable the webhook answers 503 with Retry-After, never 202.
 */

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const redisUrl = inject("redisUrl");
const ADMIN = "admin-token-durability-0123456789";
const SECRET = "durability-secret-key-0123456789";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Stack {
  baseUrl: string;
  startAlert(): Promise<void>;
  killAlert(): Promise<void>;
  stop(): Promise<void>;
}

async function startStack(extraEnv: Record<string, string> = {}): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-durability-"));
  const logger = silentLogger();
  const auth = await bootAuth(
    {
      AUTH_SERVICE_ADDR: "127.0.0.1:0",
      DATA_DIR: join(dir, "auth"),
      ADMIN_TOKEN: ADMIN,
      SECRET_KEY: SECRET,
      LOG_LEVEL: "silent",
    },
    { logger },
  );
  const alertPort = await freePort();
  const alertEnv = {
    ...process.env,
    ALERT_SERVICE_ADDR: `127.0.0.1:${alertPort}`,
    AUTH_SERVICE_ADDR: auth.address,
    DATA_DIR: join(dir, "alert"),
    SECRET_KEY: SECRET,
    LOG_LEVEL: "error",
    MONGO_URL: "",
    REDIS_URL: "",
    ...extraEnv,
  };
  let child: ChildProcess | undefined;
  const stack: Stack = {
    baseUrl: "",
    async startAlert() {
      child = spawn(process.execPath, ["--conditions=tocsin-src", "--import", "tsx", "alert-service/src/main.ts"], {
        cwd: repoRoot,
        env: alertEnv,
        stdio: ["ignore", "ignore", "inherit"],
      });
      await waitForPort(alertPort, "127.0.0.1", 30_000);
    },
    async killAlert() {
      const c = child;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once("exit", r));
      c.kill("SIGKILL");
      await exited;
    },
    async stop() {
      await gateway.stop();
      await stack.killAlert();
      await auth.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await stack.startAlert();
  const gateway = await bootGateway(
    {
      PORT: "0",
      AUTH_SERVICE_ADDR: auth.address,
      ALERT_SERVICE_ADDR: `127.0.0.1:${alertPort}`,
      SETTINGS_SERVICE_ADDR: "127.0.0.1:1",
      LOG_LEVEL: "silent",
      SECRET_KEY: SECRET,
    },
    { logger },
  );
  stack.baseUrl = gateway.url;
  return stack;
}

async function createEndpoint(baseUrl: string) {
  const admin = api(baseUrl, ADMIN);
  const project = await admin.post("/api/v4/projects", { name: `durable-${Date.now()}` });
  expect(project.status).toBe(201);
  const integration = await admin.post(`/api/v4/projects/${project.body.id}/alert_management/http_integrations`, {
    name: "Durable",
    active: true,
  });
  expect(integration.status).toBe(201);
  return {
    projectId: project.body.id as number,
    path: new URL(integration.body.url as string).pathname,
    token: integration.body.token as string,
  };
}

function poster(baseUrl: string, path: string, token: string) {
  return async (payload: unknown) => {
    try {
      const res = await fetch(`${baseUrl}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(5000),
      });
      return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.text() };
    } catch {
      return { status: 0, retryAfter: null, body: "" };
    }
  };
}

async function storedTitles(baseUrl: string, projectId: number): Promise<Map<string, number>> {
  const admin = api(baseUrl, ADMIN);
  const titles = new Map<string, number>();
  for (let page = 1; ; page++) {
    const res = await admin.get(`/api/v4/projects/${projectId}/alert_management/alerts?per_page=100&page=${page}`);
    if (res.status !== 200) return titles;
    for (const a of res.body as Array<{ title: string; events: number }>) titles.set(a.title, a.events);
    if ((res.body as unknown[]).length < 100) return titles;
  }
}

const variants: Array<[string, Record<string, string>, boolean]> = [
  ["the durable SQLite queue", {}, true],
  ["BullMQ", { REDIS_URL: redisUrl }, !!redisUrl],
];

describe("alert durability", () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  for (const [name, env, available] of variants) {
    it.skipIf(!available)(
      `every alert that got 202 is processed after a SIGKILL of alert-service (${name})`,
      { timeout: 120_000 },
      async () => {
        stack = await startStack(env);
        const s = stack;
        const { projectId, path, token } = await createEndpoint(s.baseUrl);
        const post = poster(s.baseUrl, path, token);
        const accepted = new Set<string>();
        const statuses = new Map<number, number>();
        let n = 0;
        let running = true;
        const workers = Array.from({ length: 8 }, async () => {
          while (running) {
            const title = `durable-${++n}`;
            const res = await post({ title, fingerprint: title, monitoring_tool: "durability" });
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.status === 202) accepted.add(title);
            else await sleep(20);
          }
        });
        // Conditions, not clocks: traffic flows, then fails while alert-service is down, then flows again.
        await until(() => accepted.size > 20, 60_000);
        const beforeKill = accepted.size;
        await s.killAlert();
        const failures = () => [...statuses].reduce((sum, [code, count]) => sum + (code === 202 ? 0 : count), 0);
        const failedBefore = failures();
        await until(() => failures() > failedBefore, 60_000);
        await s.startAlert();
        const afterRestart = accepted.size;
        await until(() => accepted.size >= afterRestart + 20, 60_000);
        running = false;
        await Promise.all(workers);
        expect(beforeKill).toBeGreaterThan(20);
        expect(accepted.size, JSON.stringify([...statuses])).toBeGreaterThan(afterRestart);
        expect([...statuses.keys()].every((code) => [202, 503, 0].includes(code))).toBe(true);
        // Every accepted alert stored, or after 60 s what is stored (the expectations name what is missing).
        const stored = await until(
          async () => {
            const now = await storedTitles(s.baseUrl, projectId);
            return [...accepted].every((t) => now.has(t)) && now;
          },
          60_000,
          250,
        ).catch(() => storedTitles(s.baseUrl, projectId));
        const missing = [...accepted].filter((t) => !stored.has(t));
        expect(missing).toEqual([]);
        for (const t of accepted) expect(stored.get(t)).toBe(1);
      },
    );
  }

  // A redis-server of its own, killed under the running system: without the binary it skips, and says so.
  it.skipIf(!redisUrl || !redisServerFor("alert durability, Redis unreachable"))(
    "with Redis unreachable the webhook answers 503 with Retry-After, never 202",
    { timeout: 60_000 },
    async () => {
      const port = await freePort();
      const redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
        stdio: "ignore",
      });
      try {
        await waitForPort(port);
        stack = await startStack({ REDIS_URL: `redis://127.0.0.1:${port}` });
        const { path, token } = await createEndpoint(stack.baseUrl);
        const post = poster(stack.baseUrl, path, token);
        expect((await post({ title: "while Redis is up" })).status).toBe(202);
        const exited = new Promise((r) => redis.once("exit", r));
        redis.kill("SIGKILL");
        await exited;
        for (let i = 0; i < 5; i++) {
          const res = await post({ title: `while Redis is down ${i}` });
          expect(res.status).toBe(503);
          expect(Number(res.retryAfter)).toBeGreaterThan(0);
          expect(JSON.parse(res.body)).toHaveProperty("message");
        }
      } finally {
        if (redis.exitCode === null) redis.kill("SIGKILL");
      }
    },
  );
});
