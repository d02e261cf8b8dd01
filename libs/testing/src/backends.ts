import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freePort, waitForPort } from "./tcp-ports.js";

export interface Backend {
  url: string;
  /** How it was found: `existing`, or `started` (a child process this run owns). */
  origin: "existing" | "started";
  stop(): Promise<void>;
}

async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

function stopChild(child: ChildProcess, dir?: string): () => Promise<void> {
  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}

/**
 * Redis for tests: `REDIS_URL_TEST`, else the machine's 127.0.0.1:6379, else a `redis-server`
 * started on a free loopback port. Undefined when none can be had.
 */
export async function startRedis(): Promise<Backend | undefined> {
  const candidates = [process.env.REDIS_URL_TEST, "redis://127.0.0.1:6379"].filter(Boolean) as string[];
  for (const url of candidates) {
    if (await redisAnswers(url)) return { url, origin: "existing", stop: async () => {} };
  }
  return startOwnRedis();
}

const redisServerInstalled = () => spawnSync("redis-server", ["--version"]).status === 0;

/**
 * Whether the suite `suite`, which starts a `redis-server` of its own (startOwnRedis), can run. A
 * missing binary is never a silent pass: under CI it fails the run; elsewhere it says the suite is
 * SKIPPED, and the caller skips it (`describe.skipIf(!redisServerFor(…))`).
 */
export function redisServerFor(suite: string): boolean {
  if (redisServerInstalled()) return true;
  if (process.env.CI) throw new Error(`${suite}: CI requires a redis-server binary`);
  console.warn(`[${suite}] no redis-server binary on this machine: SKIPPED`);
  return false;
}

/**
 * A `redis-server` of this test alone on a free loopback port (no persistence), for tests that
 * stop Redis under a running system (`port` to start it again where it was). Undefined when there
 * is no `redis-server` binary (a suite that needs one checks `redisServerFor` first).
 */
export async function startOwnRedis(port?: number): Promise<Backend | undefined> {
  if (!redisServerInstalled()) return undefined;
  port ??= await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  await waitForPort(port);
  return { url: `redis://127.0.0.1:${port}`, origin: "started", stop: stopChild(child) };
}

/** Where a FerretDB binary may be: FERRETDB_BIN, the repo's .tmp/bin, PATH, ~/go/bin. */
function findFerretDb(repoRoot: string): string | undefined {
  const candidates = [
    process.env.FERRETDB_BIN,
    join(repoRoot, ".tmp", "bin", "ferretdb"),
    join(homedir(), "go", "bin", "ferretdb"),
  ].filter(Boolean) as string[];
  for (const c of candidates) if (existsSync(c)) return c;
  const which = spawnSync("sh", ["-c", "command -v ferretdb"], { encoding: "utf8" });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

/**
 * A MongoDB-wire-protocol server for tests: `MONGO_URL_TEST` if set, else FerretDB (SQLite
 * backend, telemetry off) started on a free loopback port. Undefined when no binary is found.
 */
export async function startMongo(repoRoot: string): Promise<Backend | undefined> {
  if (process.env.MONGO_URL_TEST) return { url: process.env.MONGO_URL_TEST, origin: "existing", stop: async () => {} };
  return startFerretDb(repoRoot);
}

/**
 * FerretDB (telemetry off) on a free loopback port: on its SQLite backend, with its database files
 * in `sqliteDir` (kept at `stop`) or in a temporary folder (removed at `stop`), or, given
 * `postgresUrl` (a database's URL), on PostgreSQL. Undefined when no binary is found.
 */
export async function startFerretDb(
  repoRoot: string,
  backend: { postgresUrl?: string; sqliteDir?: string } = {},
): Promise<Backend | undefined> {
  const bin = findFerretDb(repoRoot);
  if (!bin) return undefined;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "tocsin-ferretdb-"));
  const files = backend.sqliteDir ?? dir;
  const handler = backend.postgresUrl
    ? ["--handler=postgresql", `--postgresql-url=${backend.postgresUrl}`]
    : ["--handler=sqlite", `--sqlite-url=file:${files}/`];
  const child = spawn(
    bin,
    [
      ...handler,
      `--listen-addr=127.0.0.1:${port}`,
      "--telemetry=disable",
      `--state-dir=${dir}`,
      "--log-level=error",
      "--debug-addr=-",
    ],
    { stdio: "ignore" },
  );
  await waitForPort(port);
  return { url: `mongodb://127.0.0.1:${port}/`, origin: "started", stop: stopChild(child, dir) };
}
