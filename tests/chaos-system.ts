import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, until } from "@tocsin/testing";
import { api } from "./api.js";
import { chaosTitle } from "./chaos-load.js";
import { seedProject, seedUser } from "./seed.js";
import { type Started, startTocsin } from "./start-process.js";

/**
 * The whole system as `npm start` runs it (scripts/start.mjs, the four built processes), for
 * faults a monitor would live through: SIGKILL of a process, SIGTERM of the system, Redis killed.
 * `redis`: BullMQ on a Redis of the test's own (AOF `always`, so that the test can kill it).
 */
export interface ChaosSystem {
  started: Started;
  url: string;
  env: Record<string, string>;
  /** The pid of a process the supervisor runs now (after restarts, the newest). */
  pid(name: "auth" | "settings" | "alert" | "gateway"): number;
  /** Waits until /-/readiness answers 200; resolves to the milliseconds it took. */
  ready(timeoutMs?: number): Promise<number>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export const CHAOS_ADMIN = "chaos-admin-token-0123456789abcdef";

export async function startChaosSystem(extraEnv: Record<string, string> = {}): Promise<ChaosSystem> {
  const dataDir = mkdtempSync(join(tmpdir(), "tocsin-chaos-"));
  const [port, auth, alert, settings] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const env = {
    PORT: String(port),
    AUTH_SERVICE_ADDR: `127.0.0.1:${auth}`,
    ALERT_SERVICE_ADDR: `127.0.0.1:${alert}`,
    SETTINGS_SERVICE_ADDR: `127.0.0.1:${settings}`,
    DATA_DIR: dataDir,
    ADMIN_TOKEN: CHAOS_ADMIN,
    SECRET_KEY: "chaos-secret-0123456789abcdef0123",
    WEBHOOK_RATE_LIMIT_PER_MINUTE: "0",
    ...extraEnv,
  };
  let started = await startTocsin(env);
  const system: ChaosSystem = {
    started,
    url: started.url,
    env,
    pid(name) {
      return pidOf(started.output(), name);
    },
    async ready(timeoutMs = 60_000) {
      const t0 = Date.now();
      await until(async () => {
        const res = await fetch(`${started.url}/-/readiness`).catch(() => undefined);
        return res?.status === 200;
      }, timeoutMs);
      return Date.now() - t0;
    },
    async restart() {
      started = await startTocsin(env);
      system.started = started;
    },
    async stop() {
      if (started.child.exitCode === null) {
        started.child.kill("SIGTERM");
        await started.exit;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return system;
}

/** The newest pid the supervisor printed for `name` ("started: auth (pid 1), …" or "alert restarted (pid 2)"). */
function pidOf(output: string, name: string): number {
  let pid: number | undefined;
  const started = new RegExp(`\\b${name} \\(pid (\\d+)\\)`, "g");
  const restarted = new RegExp(`\\b${name} restarted \\(pid (\\d+)\\)`, "g");
  for (const m of output.matchAll(started)) pid = Number(m[1]);
  const restarts = [...output.matchAll(restarted)];
  if (restarts.length) pid = Number(restarts.at(-1)?.[1]);
  if (!pid) throw new Error(`no pid for ${name} in the supervisor's output`);
  return pid;
}

export interface ChaosProject {
  projectId: number;
  token: string;
  path: string;
  key: string;
  /** The Prometheus endpoint (Alertmanager's batches). */
  prometheus: { path: string; key: string };
}

/** A user, a project and an active HTTP integration to post to. */
export async function seedChaosProject(url: string, name: string): Promise<ChaosProject> {
  const user = await seedUser(url, CHAOS_ADMIN, { username: `${name}-ops` });
  const project = await seedProject(url, user.token, { path: `${name}-svc` });
  const created = await api(url, user.token).post(`/api/v4/projects/${project.id}/alert_management/http_integrations`, {
    name: "Chaos",
    active: true,
  });
  if (created.status !== 201) throw new Error(`integration: ${created.status} ${created.text}`);
  const prometheus = await api(url, user.token).put(`/api/v4/projects/${project.id}/alert_management/prometheus_integration`, {
    active: true,
  });
  if (prometheus.status !== 200) throw new Error(`prometheus integration: ${prometheus.status} ${prometheus.text}`);
  return {
    projectId: project.id,
    token: user.token,
    path: new URL(created.body.url).pathname,
    key: created.body.token,
    prometheus: { path: new URL(prometheus.body.url).pathname, key: prometheus.body.token },
  };
}

/** Every alert of the project, read through the REST list (all pages). */
async function listAlerts(url: string, p: ChaosProject): Promise<Array<{ title: string; events: number }>> {
  const all: Array<{ title: string; events: number }> = [];
  for (let page = 1; ; page++) {
    const res = await api(url, p.token).get(`/api/v4/projects/${p.projectId}/alert_management/alerts?per_page=100&page=${page}`);
    if (res.status !== 200) throw new Error(`alerts list: ${res.status} ${res.text}`);
    all.push(...(res.body as Array<{ title: string; events: number }>));
    if (!res.headers.get("x-next-page")) return all;
  }
}

/**
 * Waits until every accepted alert is stored, then checks the two rules of a fault: nothing that
 * got a 202 is lost, and nothing is counted twice (each alert was posted under one key).
 */
export async function checkNothingLostOrDoubled(url: string, p: ChaosProject, run: string, accepted: Set<number>) {
  const titles = new Map([...accepted].map((i) => [chaosTitle(run, i), i]));
  const stored = await until(
    async () => {
      const alerts = (await listAlerts(url, p)).filter((a) => a.title.startsWith(`chaos ${run} `));
      const seen = new Set(alerts.map((a) => a.title));
      return [...titles.keys()].every((t) => seen.has(t)) ? alerts : undefined;
    },
    90_000,
    500,
  ).catch(async () => (await listAlerts(url, p)).filter((a) => a.title.startsWith(`chaos ${run} `)));
  const seen = new Map(stored.map((a) => [a.title, a]));
  const lost = [...titles.keys()].filter((t) => !seen.has(t));
  const doubled = stored.filter((a) => a.events !== 1).map((a) => `${a.title} (events ${a.events})`);
  const duplicates = stored.length - seen.size;
  return { lost, doubled, duplicates, stored: stored.length };
}

/** Sends SIGKILL to a pid and waits until it is gone. */
export async function killHard(pid: number): Promise<void> {
  process.kill(pid, "SIGKILL");
  await until(() => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }, 10_000);
}

/** A Redis of the test's own, durable like production's (AOF, fsync always), that the test may kill. */
export interface OwnRedis {
  url: string;
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startDurableRedis(): Promise<OwnRedis> {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-chaos-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--appendonly",
        "yes",
        "--appendfsync",
        "always",
        "--save",
        "",
      ],
      { stdio: "ignore" },
    );
    await until(async () => {
      const { Redis } = await import("ioredis");
      const r = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      r.on("error", () => undefined);
      try {
        await r.connect();
        return (await r.ping()) === "PONG";
      } catch {
        return false;
      } finally {
        r.disconnect();
      }
    }, 20_000);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      const c = child;
      if (!c?.pid) return;
      const gone = new Promise((r) => c.once("exit", r));
      c.kill("SIGKILL");
      await gone;
    },
    start,
    async stop() {
      const c = child;
      if (c && c.exitCode === null && c.signalCode === null) {
        const gone = new Promise((r) => c.once("exit", r));
        c.kill("SIGTERM");
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
