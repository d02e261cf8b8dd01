// MongoDB-mode ingest benchmark (issue 13): alerts stored per second with the same client, in one
// run, on the embedded mode (SQLite + in-process queue) and on the MongoDB mode (FerretDB + BullMQ
// on a private Redis), in phases of `--phase` alerts, with FerretDB's own command counters per
// alert. Usage (after `npm run build`):
//
//   node bench/mongo-ingest.mjs                          # 6 phases of 1,000 alerts, both modes
// `--cpu-prof DIR` profiles alert-service (`node bench/alert-profile.mjs DIR/<mode>` reads it).
//   node bench/mongo-ingest.mjs --modes embedded,mongo,mongo-pg \
//        --postgres-url postgres://postgres@127.0.0.1:5432/
//
// `mongo` runs FerretDB on its SQLite backend (as the tests do); `mongo-pg` on its PostgreSQL
// backend, in a fresh database `tocsin_bench_<time>` created (and dropped) with `psql` on the
// server of `--postgres-url`.
// Every alert is distinct (its own fingerprint), posted by `--concurrency` (20) loops to the
// generic webhook. A phase posts its alerts and ends when the queue reports them all processed;
// its rate is alerts / phase time. Loopback only; every wait is bounded.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createClient } from "@tocsin/grpc";
import { alertV1 } from "@tocsin/proto";
import { seed, smoke } from "./alert-seed.mjs";
import { cpuSeconds, freshPostgres, machineCpu, ROOT, sleep, startFerretDb, startSystem } from "./alert-system.mjs";

const { values: opt } = parseArgs({
  options: {
    alerts: { type: "string", default: "6000" },
    phase: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "20" },
    modes: { type: "string", default: "embedded,mongo" },
    "postgres-url": { type: "string" },
    "phase-limit": { type: "string", default: "600" },
    json: { type: "string" },
    "cpu-prof": { type: "string" },
  },
});
const CFG = {
  alerts: Number(opt.alerts),
  phase: Number(opt.phase),
  concurrency: Number(opt.concurrency),
  phaseLimitS: Number(opt["phase-limit"]),
};
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/** FerretDB's request counters by command, from its Prometheus endpoint. */
async function ferretCounters(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const out = {};
  for (const m of text.matchAll(/^ferretdb_client_requests_total\{command="([^"]+)",opcode="OP_MSG"\} (\d+)/gm)) {
    out[m[1]] = Number(m[2]);
  }
  return out;
}

function perAlert(before, after, n) {
  const out = {};
  let total = 0;
  for (const [cmd, v] of Object.entries(after)) {
    const d = v - (before[cmd] ?? 0);
    if (d > 0 && cmd !== "endSessions") {
      out[cmd] = Math.round((d / n) * 100) / 100;
      total += d;
    }
  }
  return { total: Math.round((total / n) * 100) / 100, byCommand: out };
}

async function postAll(webhook, from, count, runTag) {
  let next = from;
  const end = from + count;
  let failed = 0;
  const loop = async () => {
    while (next < end) {
      const n = next++;
      const res = await fetch(webhook.url, {
        method: "POST",
        headers: { authorization: `Bearer ${webhook.token}`, "content-type": "application/json" },
        body: JSON.stringify({ title: `bench alert ${n}`, fingerprint: `fp-${runTag}-${n}`, severity: "high" }),
        signal: AbortSignal.timeout(30_000),
      }).catch(() => null);
      if (res?.status !== 202) failed++;
      await res?.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CFG.concurrency }, loop));
  return failed;
}

async function processedCount(grpc) {
  const s = await grpc.getIngestStats({}, { requestId: "bench-mongo-ingest" });
  return { processed: s.processed, failed: s.failed };
}

/** A fresh PostgreSQL database on the server of `--postgres-url`. */
function pgOfOpts() {
  const server = opt["postgres-url"];
  if (!server) throw new Error("--modes mongo-pg needs --postgres-url postgres://user@host:port/");
  return freshPostgres(server);
}

async function runMode(mode) {
  const pg = mode === "mongo-pg" ? pgOfOpts() : undefined;
  const fdb =
    mode === "embedded" ? undefined : await startFerretDb({ handler: pg ? "postgresql" : "sqlite", postgresUrl: pg?.url });
  const prof = opt["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${join(opt["cpu-prof"], mode)}`] : [];
  const sys = await startSystem({
    queue: fdb ? "redis" : "local",
    env: fdb ? { MONGO_URL: fdb.url } : {},
    nodeArgs: { alert: prof },
  });
  const grpc = createClient(alertV1.AlertServiceService, { target: "alert", address: sys.alertAddr, timeoutMs: 5000 });
  const out = { mode, phases: [] };
  try {
    const s = await seed(sys.url);
    await smoke(sys.url, s);
    const runTag = Date.now().toString(36);
    for (let from = 0; from < CFG.alerts; from += CFG.phase) {
      const n = Math.min(CFG.phase, CFG.alerts - from);
      const before = await processedCount(grpc);
      const counters0 = fdb ? await ferretCounters(fdb.metricsUrl) : undefined;
      const cpu0 = machineCpu();
      const pids = { ...sys.procs, ...(fdb ? { ferretdb: fdb.pid } : {}) };
      const procCpu0 = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
      const t0 = performance.now();
      const rejected = await postAll(s.plain, from, n, runTag);
      const acceptedS = (performance.now() - t0) / 1000;
      const deadline = t0 + CFG.phaseLimitS * 1000;
      let now = await processedCount(grpc);
      while (now.processed + now.failed - before.processed - before.failed < n - rejected && performance.now() < deadline) {
        await sleep(50);
        now = await processedCount(grpc);
      }
      const seconds = (performance.now() - t0) / 1000;
      const stored = now.processed - before.processed;
      const cpu1 = machineCpu();
      const phase = {
        alerts: `${from + 1}-${from + n}`,
        stored,
        failedJobs: now.failed - before.failed,
        rejected,
        seconds: Math.round(seconds * 10) / 10,
        acceptSeconds: Math.round(acceptedS * 10) / 10,
        rate: Math.round((stored / seconds) * 10) / 10,
        machineBusy: Math.round(((cpu1.busy - cpu0.busy) / (cpu1.total - cpu0.total)) * 100) / 100,
        // CPU milliseconds per stored alert of each process of the system (independent of other load).
        cpuMsPerAlert: Object.fromEntries(
          Object.entries(pids).map(([name, pid]) => [
            name,
            Math.round(((cpuSeconds(pid) - procCpu0[name]) * 1000 * 100) / Math.max(1, stored)) / 100,
          ]),
        ),
      };
      if (fdb) phase.roundTrips = perAlert(counters0, await ferretCounters(fdb.metricsUrl), Math.max(1, stored));
      out.phases.push(phase);
      log(`${mode}: ${JSON.stringify(phase)}`);
      if (stored < n) {
        log(`${mode}: phase not finished within ${CFG.phaseLimitS} s; stopping this mode`);
        break;
      }
    }
  } catch (err) {
    out.error = err.message;
    log(`${mode}: FAILED: ${err.message}`);
  } finally {
    grpc.close?.();
    await sys.stop();
    await fdb?.stop();
    pg?.drop();
  }
  const first = out.phases[0];
  const last = out.phases.length > 5 ? out.phases[out.phases.length - 1] : undefined;
  out.firstRate = first?.rate;
  const stored = out.phases.reduce((n, p) => n + p.stored, 0);
  const seconds = out.phases.reduce((n, p) => n + p.seconds, 0);
  out.overallRate = seconds ? Math.round((stored / seconds) * 10) / 10 : undefined;
  out.lateRate = last?.rate;
  if (first && last) out.decay = Math.round((last.rate / first.rate) * 100) / 100;
  return out;
}

async function main() {
  const started = new Date();
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {}
  log(
    `mongo ingest bench: commit ${commit}, node ${process.version}, ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(2))}`,
    CFG,
  );
  const results = [];
  for (const mode of opt.modes.split(",").map((m) => m.trim())) {
    if (!["embedded", "mongo", "mongo-pg"].includes(mode)) throw new Error(`--modes: unknown mode ${mode}`);
    results.push(await runMode(mode));
  }
  const embedded = results.find((r) => r.mode === "embedded");
  const mongo = results.find((r) => r.mode === "mongo");
  const mongoPg = results.find((r) => r.mode === "mongo-pg");
  const summary = {
    commit,
    loadavgAtEnd: loadavg().map((l) => Math.round(l * 100) / 100),
    embeddedFirst1000: embedded?.firstRate,
    mongoFirst1000: mongo?.firstRate,
    mongoShareOfEmbedded: embedded && mongo ? Math.round((mongo.firstRate / embedded.firstRate) * 100) / 100 : undefined,
    embeddedOverall: embedded?.overallRate,
    mongoOverall: mongo?.overallRate,
    mongoShareOverall: embedded && mongo ? Math.round((mongo.overallRate / embedded.overallRate) * 100) / 100 : undefined,
    mongoAfter5000: mongo?.lateRate,
    mongoLateOverFirst: mongo?.decay,
    embeddedLateOverFirst: embedded?.decay,
    mongoPgFirst1000: mongoPg?.firstRate,
    mongoPgAfter5000: mongoPg?.lateRate,
    mongoPgOverall: mongoPg?.overallRate,
    mongoPgShareOverall: embedded && mongoPg ? Math.round((mongoPg.overallRate / embedded.overallRate) * 100) / 100 : undefined,
    mongoRoundTripsPerAlert: mongo?.phases[0]?.roundTrips,
    mongoCpuMsPerAlertFirst: mongo?.phases[0]?.cpuMsPerAlert,
    mongoCpuMsPerAlertLast: mongo?.phases.at(-1)?.cpuMsPerAlert,
  };
  log("summary", JSON.stringify(summary, null, 2));
  const dir = join(ROOT, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const file = opt.json ?? join(dir, `mongo-ingest-${started.toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, JSON.stringify({ date: started.toISOString(), config: CFG, summary, results }, null, 2));
  log(`figures written to ${file}`);
  process.exit(results.some((r) => r.error) ? 1 : 0);
}

await main();
