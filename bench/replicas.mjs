// Replica bench (issue 11, docs/scaling.md): the same load on one and on two alert-service
// replicas, in one run, alternating rounds, on the multi-replica setup (FerretDB on SQLite and a
// private Redis, one auth-service, one settings-service, one gateway). Every alert is distinct
// (its own fingerprint), posted by `--concurrency` loops to the generic webhook; a round ends when
// the replicas report them all processed. Reports alerts/s, CPU milliseconds per alert of every
// process, how busy the machine was and the load average. Usage (after `npm run build`):
//
//   node bench/replicas.mjs                        # 2 rounds of 2,000 alerts per setup
//   node bench/replicas.mjs --alerts 4000 --rounds 3 --json out.json
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createClient } from "@tocsin/grpc";
import { alertV1 } from "@tocsin/proto";
import { Redis } from "ioredis";
import { seed, smoke } from "./alert-seed.mjs";
import {
  ADMIN_TOKEN,
  cpuSeconds,
  freePort,
  launch,
  machineCpu,
  ROOT,
  sleep,
  startFerretDb,
  stopProc,
  waitPort,
} from "./alert-system.mjs";

const { values: opt } = parseArgs({
  options: {
    alerts: { type: "string", default: "2000" },
    rounds: { type: "string", default: "2" },
    concurrency: { type: "string", default: "20" },
    json: { type: "string" },
  },
});
const CFG = { alerts: Number(opt.alerts), rounds: Number(opt.rounds), concurrency: Number(opt.concurrency) };
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);
const round1 = (x) => Math.round(x * 10) / 10;

/** FerretDB, Redis, auth, settings, `replicas` alert-services and a gateway. */
async function startReplicas(replicas) {
  const dataDir = mkdtempSync(join(tmpdir(), "tocsin-replicas-bench-"));
  const procs = [];
  const fdb = await startFerretDb();
  const stop = async () => {
    for (const p of [...procs].reverse()) await stopProc(p);
    await fdb.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const [redisPort, authPort, settingsPort, httpPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const alertPorts = [];
    for (let i = 0; i < replicas; i++) alertPorts.push(await freePort());
    const alertAddrs = alertPorts.map((p) => `127.0.0.1:${p}`);
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_LEVEL: "warn",
      ADMIN_TOKEN,
      SECRET_KEY: "bench-secret-key-0123456789abcdef",
      PORT: String(httpPort),
      EXTERNAL_URL: `http://127.0.0.1:${httpPort}`,
      AUTH_SERVICE_ADDR: `127.0.0.1:${authPort}`,
      SETTINGS_SERVICE_ADDR: `127.0.0.1:${settingsPort}`,
      ALERT_SERVICE_ADDR: alertAddrs.join(","),
      MONGO_URL: fdb.url,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      WEBHOOK_RATE_LIMIT_PER_MINUTE: "0",
    };
    const redis = launch(
      "redis",
      "redis-server",
      ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      env,
    );
    procs.push(redis);
    await waitPort(redis, redisPort);
    const service = async (name, dir, port, extra = {}) => {
      const p = launch(name, process.execPath, [join(ROOT, dir, "dist", "main.js")], {
        ...env,
        DATA_DIR: join(dataDir, name),
        ...extra,
      });
      procs.push(p);
      await waitPort(p, port);
      return p;
    };
    await service("auth", "auth-service", authPort);
    await Promise.all([
      service("settings", "settings-service", settingsPort),
      ...alertPorts.map((port, i) => service(`alert-${i}`, "alert-service", port, { LISTEN_ADDR: alertAddrs[i] })),
    ]);
    await service("gateway", "gateway", httpPort);
    const url = `http://127.0.0.1:${httpPort}`;
    for (let i = 0; i < 300; i++) {
      if ((await fetch(`${url}/-/readiness`).catch(() => undefined))?.ok) break;
      await sleep(100);
    }
    const pids = { ...Object.fromEntries(procs.map((p) => [p.name, p.pid])), ferretdb: fdb.pid };
    return { url, alertAddrs, pids, redisUrl: env.REDIS_URL, ferretMetricsUrl: fdb.metricsUrl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function postAll(webhook, from, count, tag) {
  let next = from;
  const end = from + count;
  let rejected = 0;
  const loop = async () => {
    while (next < end) {
      const n = next++;
      const res = await fetch(webhook.url, {
        method: "POST",
        headers: { authorization: `Bearer ${webhook.token}`, "content-type": "application/json" },
        body: JSON.stringify({ title: `replica bench ${n}`, fingerprint: `fp-${tag}-${n}`, severity: "high" }),
        signal: AbortSignal.timeout(30_000),
      }).catch(() => null);
      if (res?.status !== 202) rejected++;
      await res?.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CFG.concurrency }, loop));
  return rejected;
}

/** Redis commands served so far (INFO commandstats), in all. */
async function redisCalls(url) {
  const redis = new Redis(url);
  try {
    const text = await redis.info("commandstats");
    return [...text.matchAll(/calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  } finally {
    redis.disconnect();
  }
}

/** FerretDB requests so far by command (its Prometheus counters). */
async function ferretCalls(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const out = {};
  for (const m of text.matchAll(/^ferretdb_client_requests_total\{command="([^"]+)"[^}]*\} (\d+)/gm))
    out[m[1]] = (out[m[1]] ?? 0) + Number(m[2]);
  return out;
}

/** Requests per alert by command between two counter readings. */
function perAlert(before, after, n) {
  const out = {};
  for (const [cmd, v] of Object.entries(after)) {
    const d = v - (before[cmd] ?? 0);
    if (d > 0 && cmd !== "endSessions") out[cmd] = Math.round((d / n) * 100) / 100;
  }
  return out;
}

/** Jobs processed (and failed) by all replicas together: each answers for itself. */
async function processed(clients) {
  let sum = 0;
  for (const c of clients) {
    const s = await c.getIngestStats({}, { requestId: "bench-replicas" });
    sum += s.processed + s.failed;
  }
  return sum;
}

async function runRound(replicas, round) {
  const sys = await startReplicas(replicas);
  const clients = sys.alertAddrs.map((address) =>
    createClient(alertV1.AlertServiceService, { target: "alert", address, timeoutMs: 5000 }),
  );
  try {
    const s = await seed(sys.url);
    await smoke(sys.url, s);
    const before = await processed(clients);
    const [redis0, ferret0] = [await redisCalls(sys.redisUrl), await ferretCalls(sys.ferretMetricsUrl)];
    const cpu0 = machineCpu();
    const load0 = loadavg()[0];
    const proc0 = Object.fromEntries(Object.entries(sys.pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
    const t0 = performance.now();
    const rejected = await postAll(s.plain, 0, CFG.alerts, `${replicas}-${round}-${Date.now().toString(36)}`);
    const acceptS = (performance.now() - t0) / 1000;
    const deadline = t0 + 600_000;
    let done = (await processed(clients)) - before;
    while (done < CFG.alerts - rejected && performance.now() < deadline) {
      await sleep(50);
      done = (await processed(clients)) - before;
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = machineCpu();
    const [redis1, ferret1] = [await redisCalls(sys.redisUrl), await ferretCalls(sys.ferretMetricsUrl)];
    const cpuMsPerAlert = Object.fromEntries(
      Object.entries(sys.pids).map(([name, pid]) => [name, round1(((cpuSeconds(pid) - proc0[name]) * 1000) / Math.max(1, done))]),
    );
    const result = {
      replicas,
      round,
      alerts: done,
      rejected,
      acceptRate: round1(CFG.alerts / acceptS),
      rate: round1(done / seconds),
      seconds: round1(seconds),
      machineBusy: Math.round(((cpu1.busy - cpu0.busy) / (cpu1.total - cpu0.total)) * 100) / 100,
      loadavg1: [round1(load0), round1(loadavg()[0])],
      cpuMsPerAlert,
      cpuMsPerAlertTotal: round1(Object.values(cpuMsPerAlert).reduce((a, b) => a + b, 0)),
      redisCommandsPerAlert: round1((redis1 - redis0) / Math.max(1, done)),
      ferretRequestsPerAlert: perAlert(ferret0, ferret1, Math.max(1, done)),
    };
    log(JSON.stringify(result));
    return result;
  } finally {
    for (const c of clients) c.close?.();
    await sys.stop();
  }
}

async function main() {
  log(`replica bench: node ${process.version}, ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(2))}`, CFG);
  const results = [];
  for (let round = 1; round <= CFG.rounds; round++) for (const replicas of [1, 2]) results.push(await runRound(replicas, round));
  const mean = (replicas, key) => {
    const rs = results.filter((r) => r.replicas === replicas);
    return round1(rs.reduce((a, r) => a + r[key], 0) / rs.length);
  };
  const summary = {
    rate1: mean(1, "rate"),
    rate2: mean(2, "rate"),
    ratio: Math.round((mean(2, "rate") / mean(1, "rate")) * 100) / 100,
    cpuMsPerAlert1: mean(1, "cpuMsPerAlertTotal"),
    cpuMsPerAlert2: mean(2, "cpuMsPerAlertTotal"),
  };
  log("summary", JSON.stringify(summary));
  if (opt.json) writeFileSync(opt.json, JSON.stringify({ config: CFG, results, summary }, null, 2));
}

await main();
