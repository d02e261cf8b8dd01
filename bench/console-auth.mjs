#!/usr/bin/env node
// Console authentication benchmark: sign-in latency (one scrypt check each), and GET /api/v4/user
// authenticated by a personal access token vs by the console's session cookie, beside a plain
// node:http server answering the same JSON.
//
// Usage: npm run build && node bench/console-auth.mjs [--duration 10] [--connections 10] [--sign-ins 20]
// auth-service and the gateway run from their dist packages, each in its own child process, on
// SQLite in a temporary folder (as bench/settings.mjs).
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import autocannon from "autocannon";

const ADMIN_TOKEN = "bench-admin-token-0123456789abcdef";
const ADMIN_PASSWORD = "bench-root-password";

async function serve(role) {
  const env = JSON.parse(process.env.BENCH_ENV ?? "{}");
  const { createLogger, systemClock } = await import("@tocsin/core");
  const boot = async (name, pkg, create) => {
    const mod = await import(pkg);
    const config = mod.loadConfig(env);
    return mod[create](config, { logger: createLogger(name, config.logLevel), clock: systemClock });
  };
  const running = await {
    auth: () => boot("auth-service", "@tocsin/auth-service", "createAuthService"),
    gateway: () => boot("gateway", "@tocsin/gateway", "createGateway"),
    baseline: () => startBaseline(env.BODY),
  }[role]();
  process.send?.({ address: running.address ?? running.url });
  process.on("message", async (m) => {
    if (m === "stop") {
      await running.stop();
      process.exit(0);
    }
  });
}

function startBaseline(body) {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, stop: () => new Promise((r) => server.close(r)) }),
    ),
  );
}

function child(role, env) {
  const proc = fork(new URL(import.meta.url).pathname, ["--serve", role], {
    env: { ...process.env, BENCH_ENV: JSON.stringify({ LOG_LEVEL: "warn", ...env }) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    proc.once("message", (m) =>
      resolve({
        address: m.address,
        stop: () =>
          new Promise((r) => {
            proc.once("exit", r);
            proc.send("stop");
          }),
      }),
    );
    proc.once("exit", (code) => reject(new Error(`${role} exited with ${code}`)));
  });
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function load(url, headers, duration, connections) {
  const r = await autocannon({ url, headers, duration, connections });
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

async function main() {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "10" },
      connections: { type: "string", default: "10" },
      "sign-ins": { type: "string", default: "20" },
    },
  });
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  const dir = mkdtempSync(join(tmpdir(), "tocsin-bench-console-"));
  const auth = await child("auth", { AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: dir, ADMIN_TOKEN, ADMIN_PASSWORD });
  const gateway = await child("gateway", { PORT: "0", AUTH_SERVICE_ADDR: auth.address, CONSOLE_DIR: dir });
  const url = gateway.address;
  try {
    const times = [];
    let cookie = "";
    for (let i = 0; i < Number(values["sign-ins"]); i++) {
      const t0 = performance.now();
      const res = await fetch(`${url}/-/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ login: "root", password: ADMIN_PASSWORD }),
      });
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`sign-in answered ${res.status}`);
      cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
      await res.arrayBuffer();
    }
    times.sort((a, b) => a - b);
    const user = await (await fetch(`${url}/api/v4/user`, { headers: { "PRIVATE-TOKEN": ADMIN_TOKEN } })).text();
    const baseline = await child("baseline", { BODY: user });
    const target = `${url}/api/v4/user`;
    await load(target, { cookie }, 3, connections); // warm-up
    const rows = {
      baseline: await load(baseline.address, {}, duration, connections),
      token: await load(target, { "PRIVATE-TOKEN": ADMIN_TOKEN }, duration, connections),
      cookie: await load(target, { cookie }, duration, connections),
    };
    await baseline.stop();
    console.log(
      `node ${process.version}, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    console.log(
      `sign-in (POST /-/session, one scrypt check): p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms over ${times.length}`,
    );
    console.log("GET /api/v4/user, %d connections, %d s:", connections, duration);
    for (const [name, r] of Object.entries(rows)) {
      console.log(
        `  ${name.padEnd(8)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  non-2xx ${r.non2xx}`,
      );
    }
  } finally {
    await gateway.stop();
    await auth.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const serveIndex = process.argv.indexOf("--serve");
if (serveIndex > 0) await serve(process.argv[serveIndex + 1]);
else await main();
