#!/usr/bin/env node
// Alert intake benchmark (issues 4 and 5, "Speed"). See bench/README.md, section "Alert intake".
//
// Usage: npm run build && node bench/alert-intake.mjs [options]
//   --duration S      seconds of each max-throughput run (default 10; --full: 20)
//   --runs N          runs of the max-throughput measurements, median reported (default 1; --full: 3)
//   --connections N   autocannon connections for max-throughput runs (default 10)
//   --rate N          offered alerts/s of the fixed-rate run and the soak (default 1000)
//   --rate-duration S seconds of the fixed-rate run (default 20; --full: 60)
//   --soak S          seconds of the memory soak (default 60; --full: 300; 0 = skip), at --rate, or at
//                     the sustainable rate (half the measured max) when --rate is past capacity
//   --queues LIST     redis,local (default redis): BullMQ on a private redis-server, in-process queue
//   --profile         run gateway and alert-service with --cpu-prof (profiles in bench/results/)
//   --json FILE       where to write every figure as JSON (default bench/results/alert-intake-<date>.json)
//   --quiet-wait S    before each phase, wait at most S s for the machine to be idle (default 60)
//   --smoke           only boot, seed and check that one alert goes end to end (exit 0 if so)
// Each service runs in its own process from its build (`node <svc>/dist/main.js`), as `npm start`
// does; autocannon, the paced generator, the probes and this script share one more process.
// Every loop is bounded in count and time; every target is 127.0.0.1.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@tocsin/grpc";
import { alertV1 } from "@tocsin/proto";
import * as L from "./alert-load.mjs";
import { reportDir as profileReport } from "./alert-profile.mjs";
import { table } from "./alert-report.mjs";
import { seed, smoke } from "./alert-seed.mjs";
import { ROOT, rssMiB, startSystem } from "./alert-system.mjs";
import { correctness, listPhase, prometheusPhase } from "./intake/checks.mjs";
import { fixedRatePhase, soakPhase } from "./intake/fixed-rate.mjs";
import { acceptPhase, baselinePhase, mappingPhase } from "./intake/throughput.mjs";

const { values: opt } = parseArgs({
  options: {
    duration: { type: "string" },
    runs: { type: "string" },
    connections: { type: "string", default: "10" },
    rate: { type: "string", default: "1000" },
    "rate-duration": { type: "string" },
    soak: { type: "string" },
    queues: { type: "string", default: "redis" },
    full: { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
    smoke: { type: "boolean", default: false },
    json: { type: "string" },
    "quiet-wait": { type: "string", default: "60" },
  },
});
const num = (v, quick, full) => Number(v ?? (opt.full ? full : quick));
const CFG = {
  duration: num(opt.duration, 10, 20),
  runs: num(opt.runs, 1, 3),
  connections: Number(opt.connections),
  rate: Number(opt.rate),
  rateDuration: num(opt["rate-duration"], 20, 60),
  soak: num(opt.soak, 60, 300),
};
const RESULTS_DIR = join(ROOT, "bench", "results");
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

async function runConfig(queue) {
  log(`# queue ${queue}: starting redis/auth/settings/alert/gateway ...`);
  const profDir = join(RESULTS_DIR, `prof-${queue}-${Date.now()}`);
  const prof = opt.profile ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : [];
  const sys = await startSystem({ queue, nodeArgs: { gateway: prof, alert: prof } });
  const grpc = createClient(alertV1.AlertServiceService, { target: "alert", address: sys.alertAddr, timeoutMs: 5000 });
  const out = { queue };
  try {
    const s = await seed(sys.url);
    out.seed = { mapped: s.mapped.error ?? "ok", prometheus: s.prometheus.error ?? "ok" };
    out.smoke = await smoke(sys.url, s);
    if (opt.smoke) return out;
    // The phases' context (bench/intake/): the seeded system, the run's settings and the idle wait's bound.
    const ctx = { ...s, url: sys.url, grpc, pids: sys.procs, cfg: CFG, quietWaitS: Number(opt["quiet-wait"]) };
    out.rssStart = { gateway: rssMiB(sys.procs.gateway), alert: rssMiB(sys.procs.alert) };
    // Warm-up (discarded): JIT, connection pools and caches of every process on the accept path.
    await L.cannon(L.webhookLoad(s.plain.url, s.plain.token, L.FLAT_BODY, { connections: CFG.connections, duration: 10 }));
    await L.waitDrained(grpc);
    out.baseline = await baselinePhase(ctx);
    out.accept = await acceptPhase(ctx, "accept (flat)", s.plain, L.FLAT_BODY);
    out.accept.ratio = out.accept.rps / out.baseline.rps;
    if (s.mapped.url) out.mapping = await mappingPhase(ctx);
    out.correctness = await correctness(ctx);
    out.fixed = await fixedRatePhase(ctx, CFG.rate, CFG.rateDuration);
    // Past capacity, the figures above only say "overloaded": also measure at a rate it sustains
    // (half of the measured processing rate), and soak there so memory is not the backlog's.
    const sustainable = Math.max(10, Math.round(Math.min(out.accept.rps, out.accept.processedRps) / 2 / 10) * 10);
    const overloaded = out.fixed.drainMs === null || out.fixed.drainMs > 5000 || out.fixed.accepted < 0.98 * CFG.rate;
    if (overloaded) out.fixedSustainable = await fixedRatePhase(ctx, sustainable, CFG.rateDuration);
    out.list = await listPhase(ctx);
    out.prometheus = await prometheusPhase(ctx);
    out.soak = await soakPhase(ctx, overloaded ? sustainable : CFG.rate);
  } catch (err) {
    out.error = err.message;
    log(`queue ${queue}: FAILED: ${err.message}`);
  } finally {
    grpc.close?.();
    await sys.stop();
  }
  if (opt.profile) {
    out.profileDir = profDir;
    try {
      profileReport(profDir);
    } catch (err) {
      log(`no profile: ${err.message}`);
    }
  }
  return out;
}

async function main() {
  const started = new Date();
  log(`alert intake benchmark: node ${process.version}, ${cpus().length} cores, config`, CFG);
  const all = [];
  for (const queue of opt.queues.split(",").map((q) => q.trim())) {
    if (queue !== "redis" && queue !== "local") throw new Error(`--queues: unknown queue ${queue}`);
    all.push(await runConfig(queue));
  }
  for (const r of all) table(r, CFG);
  if (opt.smoke) {
    const failed = all.some((r) => r.error);
    if (!failed) log("smoke: ok", all);
    process.exit(failed ? 1 : 0);
  }
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {}
  const record = {
    date: started.toISOString(),
    commit,
    node: process.version,
    cores: cpus().length,
    loadavgAtEnd: loadavg(),
    config: CFG,
    results: all,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = opt.json ?? join(RESULTS_DIR, `alert-intake-${started.toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, JSON.stringify(record, null, 2));
  log(`figures written to ${file}`);
  process.exit(all.some((r) => r.error) ? 1 : 0);
}

await main();
