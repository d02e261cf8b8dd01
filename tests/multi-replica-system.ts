import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Backend, freePort, startMongo, until, waitForPort } from "@tocsin/testing";
import { Redis } from "ioredis";

/**
 * Eight processes: two replicas of each service, each a child process running its build
 * (`<service>/dist/main.js`), on free loopback ports, every one pointed at both replicas of the
 * others (comma-separated address lists), all sharing one Redis (this run's own key prefixes)
 * and one FerretDB (SQLite backend) started for the suite and removed with it. Its Redis keys
 * and channels start with `tocsin-mr-<run>`; the keys are deleted at the end.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const SERVICES = ["auth-service", "settings-service", "alert-service", "gateway"] as const;
type Service = (typeof SERVICES)[number];
export const builtForReplicas = SERVICES.every((s) => existsSync(join(root, s, "dist", "main.js")));

export const ADMIN = "multi-replica-admin-token-0123456789";
const SECRET = "multi-replica-secret-key-0123456789";

interface Proc {
  name: string;
  child: ChildProcess;
  exited: Promise<void>;
  /** The last lines it wrote (stdout and stderr), for failure messages. */
  tail(): string;
}

export interface ReplicaSystem {
  /** The two gateways' base URLs. */
  gateways: [string, string];
  procs: Map<string, Proc>;
  /** SIGKILL of replica `index` of `service`; resolves once it is gone. */
  kill(service: Service, index: 0 | 1): Promise<void>;
  /** Every process's last output lines (for failure messages). */
  tails(): string;
  stop(): Promise<void>;
}

function spawnProc(name: string, service: Service, env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [join(root, service, "dist", "main.js")], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line.trim()) lines.push(line.slice(0, 400));
    if (lines.length > 60) lines.splice(0, lines.length - 60);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return { name, child, exited, tail: () => lines.join("\n") };
}

async function terminate(proc: Proc, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill(signal);
  const gone = await Promise.race([proc.exited.then(() => true), new Promise((r) => setTimeout(() => r(false), graceMs))]);
  if (!gone) {
    proc.child.kill("SIGKILL");
    await proc.exited;
  }
}

/**
 * Starts the eight processes; on any failure everything started so far is stopped. `env` adds
 * variables to every process (e.g. SMTP_URL for the paging suite).
 */
export async function startReplicaSystem(redisUrl: string, env: Record<string, string> = {}): Promise<ReplicaSystem> {
  const run = randomBytes(4).toString("hex");
  const dir = mkdtempSync(join(tmpdir(), "tocsin-multi-replica-"));
  const procs = new Map<string, Proc>();
  let mongo: Backend | undefined;
  const prefix = `tocsin-mr-${run}`;
  const stop = async () => {
    await Promise.all([...procs.values()].map((p) => terminate(p, "SIGTERM", 8_000)));
    await mongo?.stop();
    rmSync(dir, { recursive: true, force: true });
    // This run's keys only (queues, rate limits): the Redis is shared.
    const redis = new Redis(redisUrl);
    try {
      for (let cursor = "0"; ; ) {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
        if (keys.length) await redis.del(...keys);
        cursor = next;
        if (cursor === "0") break;
      }
    } finally {
      redis.disconnect();
    }
  };
  const tails = () =>
    [...procs.values()]
      .map((p) => `--- ${p.name} (exit ${p.child.exitCode ?? p.child.signalCode ?? "running"})\n${p.tail()}`)
      .join("\n");
  try {
    mongo = await startMongo(root);
    if (!mongo) throw new Error("no MongoDB-protocol server (FerretDB: scripts/install-ferretdb.sh)");
    const port = async () => [await freePort(), await freePort()] as const;
    const ports = { auth: await port(), settings: await port(), alert: await port(), gateway: await port() };
    const list = (p: readonly number[]) => p.map((n) => `127.0.0.1:${n}`).join(",");
    const base: Record<string, string> = {
      ...(process.env as Record<string, string>),
      AUTH_SERVICE_ADDR: list(ports.auth),
      SETTINGS_SERVICE_ADDR: list(ports.settings),
      ALERT_SERVICE_ADDR: list(ports.alert),
      MONGO_URL: mongo.url,
      REDIS_URL: redisUrl,
      SECRET_KEY: SECRET,
      ADMIN_TOKEN: ADMIN,
      LOG_LEVEL: "warn",
    };
    for (const name of ["MONGO_DB", "EXTERNAL_URL", "ADMIN_PASSWORD", "QUEUE_PREFIX", "PORT", "LISTEN_ADDR"]) delete base[name];
    const perService: Record<Service, (i: 0 | 1) => Record<string, string>> = {
      "auth-service": (i) => ({ LISTEN_ADDR: `127.0.0.1:${ports.auth[i]}`, MONGO_DB: `mr_${run}_auth`, EVENTS_PREFIX: prefix }),
      "settings-service": (i) => ({ LISTEN_ADDR: `127.0.0.1:${ports.settings[i]}`, MONGO_DB: `mr_${run}_settings` }),
      "alert-service": (i) => ({
        LISTEN_ADDR: `127.0.0.1:${ports.alert[i]}`,
        MONGO_DB: `mr_${run}_alert`,
        QUEUE_PREFIX: prefix,
      }),
      gateway: (i) => ({
        PORT: String(ports.gateway[i]),
        EXTERNAL_URL: `http://127.0.0.1:${ports.gateway[0]}`,
        RATE_LIMIT_PREFIX: `${prefix}:limits`,
      }),
    };
    const listen: Record<Service, readonly number[]> = {
      "auth-service": ports.auth,
      "settings-service": ports.settings,
      "alert-service": ports.alert,
      gateway: ports.gateway,
    };
    // In dependency order, both replicas of a service at once (as a Deployment starts its pods).
    for (const service of SERVICES) {
      await Promise.all(
        ([0, 1] as const).map(async (i) => {
          const name = `${service}-${i}`;
          const proc = spawnProc(name, service, { ...base, ...env, ...perService[service](i), DATA_DIR: join(dir, name) });
          procs.set(name, proc);
          const died = proc.exited.then(() => {
            throw new Error(`${name} exited while starting:\n${proc.tail()}`);
          });
          await Promise.race([waitForPort(listen[service][i] as number, "127.0.0.1", 60_000), died]);
        }),
      );
    }
    const gateways = ports.gateway.map((p) => `http://127.0.0.1:${p}`) as [string, string];
    // Ready: each gateway's readiness asks all three services.
    for (const url of gateways) {
      let last = "no answer";
      await until(
        async () => {
          const res = await fetch(`${url}/-/readiness`).catch((err: Error) => err);
          if (res instanceof Error) last = res.message;
          else if (!res.ok) last = `${res.status} ${await res.text()}`;
          return res instanceof Response && res.ok;
        },
        60_000,
        100,
      ).catch((err: Error) => {
        // What the probe last said, and what every replica logged: a start-up that never becomes
        // ready is otherwise impossible to diagnose from CI's log.
        throw new Error(`${url} not ready (${err.message}); last answer: ${last}\n${tails()}`);
      });
    }
    return {
      gateways,
      procs,
      async kill(service, index) {
        const proc = procs.get(`${service}-${index}`);
        if (proc) await terminate(proc, "SIGKILL", 10_000);
      },
      tails,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
