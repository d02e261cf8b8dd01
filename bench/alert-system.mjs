// Alert intake benchmark helper: runs the system under test as a user runs it, one OS process per
// service (`node <service>/dist/main.js`, as `npm start` does), on free loopback ports, with a
// private `redis-server` for BullMQ (so the shared Redis of the tests is never touched) and
// SQLite stores in a temporary DATA_DIR. Also reads each process's RSS and CPU time from /proc.
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { freshPostgresDatabase } from "@tocsin/testing";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const ADMIN_TOKEN = "bench-admin-token-0123456789abcdef";
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const CLK_TCK = 100; // Linux USER_HZ

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * One REST call to the gateway as `token` (default the admin's): `{ json, headers }`; a status
 * ≥ 300 throws with the answer. A kept-alive connection that the server closed while it idled
 * (between a bench's phases) is retried once, on a new connection.
 */
export async function rest(url, method, path, { body, token = ADMIN_TOKEN } = {}) {
  const request = () =>
    fetch(`${url}${path}`, {
      method,
      headers: { "private-token": token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const res = await request().catch(request);
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return { json: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** Polls `check` every 100 ms until it answers a truthy value (which it resolves to); throws after `timeoutMs`. */
export async function until(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(100);
  }
}

/** A free TCP port on 127.0.0.1 (released before use: a tiny race, acceptable for a bench). */
export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

function connects(port) {
  return new Promise((res) => {
    const s = new Socket();
    s.setTimeout(500);
    s.once("connect", () => {
      s.destroy();
      res(true);
    });
    s.once("timeout", () => {
      s.destroy();
      res(false);
    });
    s.once("error", () => res(false));
    s.connect(port, "127.0.0.1");
  });
}

export async function waitPort(proc, port) {
  const until = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < until) {
    if (proc.child.exitCode !== null)
      throw new Error(`${proc.name} exited (code ${proc.child.exitCode}) before listening on ${port}`);
    if (await connects(port)) return;
    await sleep(100);
  }
  throw new Error(`${proc.name} does not listen on ${port} after ${START_TIMEOUT_MS / 1000} s`);
}

/**
 * Spawns a process; its output lines are prefixed with its name and kept in a short tail.
 * `stdoutFd` (an open file) takes its stdout instead (for logs at LOG_LEVEL=info).
 */
export function launch(name, command, args, env, stdoutFd) {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", stdoutFd ?? "pipe", "pipe"] });
  const tail = [];
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      if (!/^\s*$/.test(line) && name !== "redis") process.stderr.write(`  [${name}] ${line.slice(0, 400)}\n`);
    });
  }
  const exited = new Promise((r) => child.once("close", r));
  return { name, child, pid: child.pid, tail, exited };
}

export async function stopProc(proc) {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill("SIGTERM");
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await proc.exited;
  clearTimeout(timer);
}

/** RSS in MiB of a process, from /proc/<pid>/status VmRSS; null once it is gone. */
export function rssMiB(pid) {
  try {
    const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+)\s+kB/m);
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime, stime (fields 14, 15)
  } catch {
    return null;
  }
}

/** Machine-wide CPU seconds `{ busy, total }` (all cores) from /proc/stat. */
export function machineCpu() {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0];
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const total = v.reduce((a, b) => a + b, 0) / CLK_TCK;
  const idle = (v[3] + (v[4] ?? 0)) / CLK_TCK; // idle + iowait
  return { busy: total - idle, total };
}

/**
 * A fresh PostgreSQL database on the server of `serverUrl` (postgres://user@host:port/), for
 * FerretDB's PostgreSQL backend (the tests' `freshPostgresDatabase`); resolves to its URL,
 * `idIndexes(schema)` (scripts/ferretdb-postgres-id-indexes.sql on the FerretDB database `schema`)
 * and `drop()`.
 */
export function freshPostgres(serverUrl, prefix = "tocsin_bench") {
  const db = freshPostgresDatabase(serverUrl, prefix);
  return {
    url: db.url,
    idIndexes: (schema) => db.file(join(ROOT, "scripts", "ferretdb-postgres-id-indexes.sql"), { schema }),
    drop: db.drop,
  };
}

/**
 * Starts FerretDB (`FERRETDB_BIN`, else the repo's `.tmp/bin/ferretdb`) on free loopback ports:
 * `handler` "sqlite" (its database files in `sqliteDir`, else in its temporary folder) or
 * "postgresql" (`postgresUrl`). Resolves to `{ url, metricsUrl, files, stop() }`; `metricsUrl`
 * serves its Prometheus counters, `files` is the SQLite backend's folder (`<database>.sqlite`).
 */
export async function startFerretDb({ handler = "sqlite", postgresUrl, sqliteDir } = {}) {
  const [port, debugPort] = await Promise.all([freePort(), freePort()]);
  const dir = mkdtempSync(join(tmpdir(), "tocsin-bench-ferretdb-"));
  const files = sqliteDir ?? dir;
  const backend =
    handler === "postgresql"
      ? ["--handler=postgresql", `--postgresql-url=${postgresUrl}`]
      : ["--handler=sqlite", `--sqlite-url=file:${files}/`];
  const args = [
    ...backend,
    `--listen-addr=127.0.0.1:${port}`,
    "--telemetry=disable",
    `--state-dir=${dir}`,
    "--log-level=error",
    `--debug-addr=127.0.0.1:${debugPort}`,
  ];
  const bin = process.env.FERRETDB_BIN ?? join(ROOT, ".tmp", "bin", "ferretdb");
  const proc = launch("ferretdb", bin, args, { PATH: process.env.PATH });
  await waitPort(proc, port);
  return {
    url: `mongodb://127.0.0.1:${port}/`,
    metricsUrl: `http://127.0.0.1:${debugPort}/debug/metrics`,
    pid: proc.pid,
    files,
    stop: async () => {
      await stopProc(proc);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts redis (when `queue` is "redis"), auth, settings, alert-service and the gateway.
 * Resolves to `{ url, alertAddr, procs: {name: pid}, dataDir, stop() }`.
 * `env` adds variables to every service (e.g. `MONGO_URL` for the MongoDB stores); `logFile`
 * receives the services' stdout (their logs) instead of this process; `redisAof` runs Redis with
 * `--appendonly yes --appendfsync always` (every write on disk before Redis answers).
 * @param {{ queue: "redis" | "local", nodeArgs?: Record<string, string[]>, env?: Record<string, string>, logFile?: string, redisAof?: boolean }} options
 */
export async function startSystem({ queue, nodeArgs = {}, env: extraEnv = {}, logFile, redisAof = false }) {
  const dataDir = mkdtempSync(join(tmpdir(), "tocsin-alert-bench-"));
  const procs = [];
  const logFd = logFile ? openSync(logFile, "a") : undefined;
  const stop = async () => {
    for (const p of [...procs].reverse()) await stopProc(p);
    if (logFd !== undefined) closeSync(logFd);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const [redisPort, authPort, settingsPort, alertPort, httpPort] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_LEVEL: "warn",
      ADMIN_TOKEN,
      SECRET_KEY: "bench-secret-key-0123456789abcdef",
      DATA_DIR: dataDir,
      PORT: String(httpPort),
      EXTERNAL_URL: `http://127.0.0.1:${httpPort}`,
      AUTH_SERVICE_ADDR: `127.0.0.1:${authPort}`,
      SETTINGS_SERVICE_ADDR: `127.0.0.1:${settingsPort}`,
      ALERT_SERVICE_ADDR: `127.0.0.1:${alertPort}`,
      // No per-integration webhook budget (issue 12's default is 6,000/min): the benches measure
      // throughput, not 429s. A bench may set it again through `env`.
      WEBHOOK_RATE_LIMIT_PER_MINUTE: "0",
      ...extraEnv,
    };
    if (queue === "redis") {
      const aof = redisAof ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"];
      const args = ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", ...aof, "--dir", dataDir];
      const redis = launch("redis", "redis-server", args, env);
      procs.push(redis);
      await waitPort(redis, redisPort);
      env.REDIS_URL = `redis://127.0.0.1:${redisPort}`;
    }
    const service = async (name, dir, port) => {
      const p = launch(name, process.execPath, [...(nodeArgs[name] ?? []), join(ROOT, dir, "dist", "main.js")], env, logFd);
      procs.push(p);
      await waitPort(p, port);
    };
    await service("auth", "auth-service", authPort);
    await Promise.all([service("settings", "settings-service", settingsPort), service("alert", "alert-service", alertPort)]);
    await service("gateway", "gateway", httpPort);
    const url = `http://127.0.0.1:${httpPort}`;
    await waitReady(url);
    return {
      url,
      alertAddr: env.ALERT_SERVICE_ADDR,
      redisUrl: env.REDIS_URL,
      procs: Object.fromEntries(procs.map((p) => [p.name, p.pid])),
      dataDir,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function waitReady(url) {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${url}/-/readiness`).catch(() => null);
    if (res?.ok) return;
    await sleep(200);
  }
  throw new Error(`gateway at ${url} is not ready after 20 s`);
}

/** Starts `bench/baseline.mjs` in its own process (like the gateway, apart from autocannon). */
export async function startBaselineProcess() {
  const port = await freePort();
  const proc = launch("baseline", process.execPath, [join(ROOT, "bench", "baseline.mjs"), String(port)], {
    PATH: process.env.PATH,
  });
  await waitPort(proc, port);
  return { url: `http://127.0.0.1:${port}`, pid: proc.pid, stop: () => stopProc(proc) };
}
