#!/usr/bin/env node
// `npm start`: runs the four Tocsin processes from their builds (`<service>/dist/main.js`) with
// embedded defaults (SQLite under DATA_DIR, in-process queue), in dependency order:
// auth-service, then settings-service and alert-service, then the gateway.
// Every output line is prefixed with the process name. SIGINT/SIGTERM stop the processes in
// reverse order, within STOP_DEADLINE_MS in all (a process still running then is killed). Once
// the system is up, a process that dies is restarted at once (after RESTART_FIRST_MS); only one
// that keeps dying backs off (1 s, doubling up to 30 s; a process that ran 10 s counts as
// recovered), and the others keep serving. A process that fails while the system is starting
// stops the start (a configuration error would only fail again). Each process is started with
// an IPC channel and stops when it closes, so no process outlives this script, however it ends
// (SIGKILL included).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { Socket } from "node:net";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const START_TIMEOUT_MS = 30_000;
/** The whole stop, every stage: a process still running at the deadline is killed. */
const STOP_DEADLINE_MS = 8_000;
/** A crash is answered by a restart this soon; only repeated crashes back off. */
const RESTART_FIRST_MS = 200;
const RESTART_BACKOFF_MS = 1_000;
const RESTART_MAX_MS = 30_000;
/** A process that ran this long before it died was not crash-looping: its next restart is immediate again. */
const RESTART_RESET_MS = 10_000;

const env = process.env;
const port = env.PORT ?? "8080";
const addrs = {
  auth: env.AUTH_SERVICE_ADDR ?? "127.0.0.1:50051",
  settings: env.SETTINGS_SERVICE_ADDR ?? "127.0.0.1:50053",
  alert: env.ALERT_SERVICE_ADDR ?? "127.0.0.1:50052",
};
const shared = {
  ...env,
  DATA_DIR: resolve(env.DATA_DIR ?? join(root, "data")),
  EXTERNAL_URL: env.EXTERNAL_URL ?? `http://localhost:${port}`,
  AUTH_SERVICE_ADDR: addrs.auth,
  SETTINGS_SERVICE_ADDR: addrs.settings,
  ALERT_SERVICE_ADDR: addrs.alert,
};

/** Start stages: each stage's processes start together; the next stage waits for their ports. */
const stages = [
  [{ name: "auth", dir: "auth-service", addr: addrs.auth }],
  [
    { name: "settings", dir: "settings-service", addr: addrs.settings },
    { name: "alert", dir: "alert-service", addr: addrs.alert },
  ],
  [{ name: "gateway", dir: "gateway", addr: `127.0.0.1:${port}` }],
];
const width = Math.max(...stages.flat().map((s) => s.name.length));
/** @type {{ name: string, child: import("node:child_process").ChildProcess, exited: Promise<number> }[][]} */
const running = [];
let stopping = false;
/** True once every process listens; from then on a crashed process is restarted. */
let systemUp = false;

function say(message) {
  console.log(`${"tocsin".padEnd(width)} | ${message}`);
}

function splitAddr(addr) {
  const i = addr.lastIndexOf(":");
  const host = addr.slice(0, i).replace(/^\[|\]$/g, "");
  return {
    host: host === "0.0.0.0" || host === "" ? "127.0.0.1" : host === "::" ? "::1" : host,
    port: Number(addr.slice(i + 1)),
  };
}

function checkConfig() {
  const problems = [];
  for (const { name, addr, dir } of stages.flat()) {
    const { port: p } = splitAddr(addr);
    if (!Number.isInteger(p) || p <= 0 || p > 65535) problems.push(`${name}: address ${addr} needs a fixed port (1-65535)`);
    if (!existsSync(join(root, dir, "dist", "main.js")))
      problems.push(`${name}: ${dir}/dist/main.js is missing (run \`npm run build\`)`);
  }
  return problems;
}

/** Spawns the process's build and returns the proc record; `exited` resolves with its exit code. */
function spawnProc(spec) {
  const { name, dir } = spec;
  const child = spawn(process.execPath, [join(root, dir, "dist", "main.js")], {
    cwd: root,
    env: shared,
    // The IPC channel is the child's lifeline: it stops when the channel closes (libs/core onShutdown).
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    // Own process group: a terminal's Ctrl-C reaches only this script, which stops the
    // processes in order instead of all at once.
    detached: true,
  });
  const prefix = `${name.padEnd(width)} | `;
  for (const [stream, out] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => out.write(`${prefix}${line}\n`));
  }
  const exited = new Promise((resolveExit) => {
    // "close" comes after the last output line. Ended by the SIGTERM we sent counts as a clean stop.
    child.once("close", (code, signal) => resolveExit(code ?? (signal === "SIGTERM" && stopping ? 0 : 1)));
    child.once("error", (err) => {
      say(`${name} could not start: ${err.message}`);
      resolveExit(1);
    });
  });
  return { name, spec, child, exited, startedAt: Date.now() };
}

/** Starts a process and supervises it: see the rules at the top of this file. */
function launch(spec) {
  const proc = spawnProc(spec);
  let backoffMs = RESTART_FIRST_MS;
  const watch = (current) => {
    void current.exited.then(async (code) => {
      if (stopping) return;
      if (!systemUp) {
        say(`${spec.name} exited while starting (code ${code}); stopping the others`);
        void shutdown(1);
        return;
      }
      if (Date.now() - current.startedAt >= RESTART_RESET_MS) backoffMs = RESTART_FIRST_MS;
      say(`${spec.name} exited unexpectedly (code ${code}); restarting it in ${backoffMs / 1000} s`);
      await new Promise((r) => setTimeout(r, backoffMs));
      backoffMs = backoffMs < RESTART_BACKOFF_MS ? RESTART_BACKOFF_MS : Math.min(backoffMs * 2, RESTART_MAX_MS);
      if (stopping) return;
      const next = spawnProc(spec);
      Object.assign(proc, { child: next.child, exited: next.exited, startedAt: next.startedAt });
      say(`${spec.name} restarted (pid ${next.child.pid})`);
      watch(next);
    });
  };
  watch(proc);
  return proc;
}

function connects(host, p) {
  return new Promise((resolveOk) => {
    const socket = new Socket();
    socket.setTimeout(1000);
    socket.once("connect", () => {
      socket.destroy();
      resolveOk(true);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolveOk(false);
    });
    socket.once("error", () => resolveOk(false));
    socket.connect(p, host);
  });
}

/** Resolves once the process accepts connections on its address; rejects if it exits first or times out. */
async function waitListening(proc, addr) {
  const { host, port: p } = splitAddr(addr);
  let exited = false;
  void proc.exited.then(() => {
    exited = true;
  });
  const until = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < until) {
    if (exited) throw new Error(`${proc.name} exited before it listened on ${addr}`);
    if (await connects(host, p)) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${proc.name} does not listen on ${addr} after ${START_TIMEOUT_MS / 1000} s`);
}

async function stopProc(proc, deadline) {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill("SIGTERM");
  const timer = setTimeout(
    () => {
      say(`${proc.name} did not stop in time; killing it`);
      proc.child.kill("SIGKILL");
    },
    Math.max(0, deadline - Date.now()),
  );
  await proc.exited;
  clearTimeout(timer);
}

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  // Each stage (the gateway first) may use half of the time left, the last one all of it.
  const stages = [...running].reverse();
  const end = Date.now() + STOP_DEADLINE_MS;
  for (const [i, stage] of stages.entries()) {
    const deadline = i === stages.length - 1 ? end : Date.now() + (end - Date.now()) / 2;
    await Promise.all(stage.map((p) => stopProc(p, deadline)));
  }
  const codes = await Promise.all(running.flat().map((p) => p.exited));
  process.exit(code || (codes.some((c) => c !== 0) ? 1 : 0));
}

async function main() {
  const problems = checkConfig();
  if (problems.length) {
    for (const p of problems) say(p);
    process.exit(2);
  }
  mkdirSync(shared.DATA_DIR, { recursive: true });
  say(
    `data in ${shared.DATA_DIR}; storage: ${env.MONGO_URL ? "MongoDB (MONGO_URL)" : "embedded SQLite"}; queue: ${env.REDIS_URL ? "BullMQ (REDIS_URL)" : "in-process"}`,
  );
  if (!env.ADMIN_TOKEN && !env.ADMIN_PASSWORD) {
    say("Neither ADMIN_TOKEN nor ADMIN_PASSWORD is set, so there is no admin user to create users, groups and projects with.");
    say(
      "  Set them to bootstrap the root admin, e.g.: ADMIN_PASSWORD=<8+ characters> ADMIN_TOKEN=$(openssl rand -hex 20) npm start",
    );
  }
  for (const stage of stages) {
    if (stopping) return;
    const procs = stage.map(launch);
    running.push(procs);
    await Promise.all(procs.map((proc, i) => waitListening(proc, stage[i].addr)));
  }
  if (stopping) return;
  systemUp = true;
  say(
    `started: ${running
      .flat()
      .map((p) => `${p.name} (pid ${p.child.pid})`)
      .join(", ")}`,
  );
  say(`Tocsin is running: gateway on http://localhost:${port}`);
  say("Press Ctrl-C to stop.");
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
process.on("SIGHUP", () => void shutdown(0));
// Last resort (an exception here): never leave the processes running without us.
process.on("exit", () => {
  for (const p of running.flat()) if (p.child.exitCode === null) p.child.kill("SIGKILL");
});

main().catch((err) => {
  if (!stopping) say(`start failed: ${err.message}`);
  void shutdown(1);
});
