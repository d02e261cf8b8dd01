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
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createClient } from "@tocsin/grpc";
import { alertV1 } from "@tocsin/proto";
import * as L from "./alert-load.mjs";
import { paced } from "./alert-paced.mjs";
import { reportDir as profileReport } from "./alert-profile.mjs";
import { table } from "./alert-report.mjs";
import { seed, smoke } from "./alert-seed.mjs";
import { cpuSeconds, machineCpu, ROOT, rssMiB, sleep, startBaselineProcess, startSystem } from "./alert-system.mjs";

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
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/**
 * CPU used during `fn`, in % of one core: per process, by this process (`bench`: load generator
 * and probes), by the whole machine (`machine`, out of 200% on 2 cores) and by everything else
 * on it (`other`: processes not part of this benchmark). With `count(result)` (requests done),
 * also the CPU milliseconds per request of each process (`perReq`), which foreign load on the
 * machine disturbs much less than req/s.
 */
async function withCpu(pids, fn, count) {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const self0 = process.cpuUsage();
  const m0 = machineCpu();
  const t0 = performance.now();
  const result = await fn();
  const wall = (performance.now() - t0) / 1000;
  const used = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid) - before[k]]));
  const self = process.cpuUsage(self0);
  used.bench = (self.user + self.system) / 1e6;
  const cpu = Object.fromEntries(Object.entries(used).map(([k, sec]) => [k, Math.round((100 * sec) / wall)]));
  const ours = Object.values(cpu).reduce((a, b) => a + b, 0);
  cpu.machine = Math.round((100 * (machineCpu().busy - m0.busy)) / wall);
  cpu.other = Math.max(0, cpu.machine - ours);
  const n = count?.(result);
  const perReq = n
    ? Object.fromEntries(Object.entries(used).map(([k, sec]) => [k, Math.round((1e5 * sec) / n) / 100]))
    : undefined;
  return { result, cpu, perReq };
}

/**
 * Waits (at most `--quiet-wait` s) until the machine is nearly idle (< 30% of one core busy over
 * 2 s) so that other work on it disturbs the next phase less; resolves to the last busy %.
 */
async function waitQuiet(label) {
  const limit = Number(opt["quiet-wait"]) * 1000;
  const t0 = performance.now();
  let busy = 0;
  for (let i = 0; i < 1000 && performance.now() - t0 <= limit; i++) {
    const m0 = machineCpu();
    await sleep(2000);
    busy = Math.round((100 * (machineCpu().busy - m0.busy)) / 2);
    if (busy < 30) break;
  }
  if (busy >= 30)
    log(
      `${label}: the machine is still busy (${busy}% of a core) after ${Math.round((performance.now() - t0) / 1000)} s; measuring anyway`,
    );
  return busy;
}

/** `runs` measured runs after a 3 s warm-up; the run with the median req/s is reported. */
async function maxRuns(opts) {
  const warm = await L.cannon({ ...opts, duration: 3 });
  const runs = [];
  for (let i = 0; i < CFG.runs; i++) runs.push(L.summarize(await L.cannon({ ...opts, duration: CFG.duration })));
  const m = median(runs.map((r) => r.rps));
  const done = warm["2xx"] + runs.reduce((a, r) => a + r.n2xx, 0);
  return { ...runs.find((r) => r.rps === m), runs: runs.map((r) => r.rps), done };
}

/** Max-throughput accept run against one webhook, then the drain of what it queued. */
async function acceptPhase(ctx, name, webhook, body) {
  const idleBefore = await waitQuiet(name);
  const before = (await L.countAlerts(ctx.url, ctx.token, ctx.projectId)).total;
  const t0 = performance.now();
  let loadMs = 0;
  // The CPU window covers the drain too, so that alert-service's cost per alert includes processing.
  const { result, cpu, perReq } = await withCpu(
    ctx.pids,
    async () => {
      const r = await maxRuns(L.webhookLoad(webhook.url, webhook.token, body, { connections: CFG.connections }));
      loadMs = performance.now() - t0;
      return { ...r, drainMs: await L.waitDrained(ctx.grpc) };
    },
    (r) => r.done,
  );
  const stored = (await L.countAlerts(ctx.url, ctx.token, ctx.projectId)).total - before;
  const processedRps = Math.round((1000 * stored) / (loadMs + (result.drainMs ?? 0)));
  log(
    `${name}: ${result.rps} req/s p99 ${result.p99} ms, errors ${result.errors}; drained in ${result.drainMs} ms; ${stored} stored (${processedRps}/s incl. drain); cpu %`,
    cpu,
    "cpu ms/alert",
    perReq,
  );
  return { ...result, stored, processedRps, cpu, perReq, idleBefore };
}

/**
 * Custom mapping cost: the same nested body to the plain and to the mapped integration, in
 * alternating pairs (A B, B A, ...) so that drifting machine load hits both alike; medians of
 * req/s and of the CPU ms per alert of gateway + alert-service + redis (processing included).
 */
async function mappingPhase(ctx) {
  const pairs = Math.max(2, CFG.runs);
  const sides = { plain: { rps: [], cpu: [], gateway: [], alert: [] }, mapped: { rps: [], cpu: [], gateway: [], alert: [] } };
  await waitQuiet("mapping");
  for (let i = 0; i < pairs; i++) {
    for (const side of i % 2 === 0 ? ["plain", "mapped"] : ["mapped", "plain"]) {
      const hook = side === "plain" ? ctx.plain : ctx.mapped;
      const load = L.webhookLoad(hook.url, hook.token, L.NESTED_BODY, { connections: CFG.connections, duration: CFG.duration });
      const { result, perReq } = await withCpu(
        ctx.pids,
        async () => ({ ...L.summarize(await L.cannon(load)), drainMs: await L.waitDrained(ctx.grpc) }),
        (r) => r.n2xx,
      );
      sides[side].rps.push(result.rps);
      sides[side].cpu.push(Math.round((perReq.gateway + perReq.alert + (perReq.redis ?? 0)) * 100) / 100);
      sides[side].gateway.push(perReq.gateway);
      sides[side].alert.push(perReq.alert);
    }
  }
  const m = (side) => ({
    rps: median(sides[side].rps),
    cpuMsPerAlert: median(sides[side].cpu),
    gatewayMs: median(sides[side].gateway),
    alertMs: median(sides[side].alert),
    runs: sides[side],
  });
  const out = { pairs, plain: m("plain"), mapped: m("mapped") };
  out.rpsCost = 1 - out.mapped.rps / out.plain.rps;
  out.cpuCost = out.mapped.cpuMsPerAlert / out.plain.cpuMsPerAlert - 1;
  log(
    `mapping: plain ${out.plain.rps} req/s ${out.plain.cpuMsPerAlert} cpu-ms/alert; mapped ${out.mapped.rps} req/s ${out.mapped.cpuMsPerAlert} cpu-ms/alert`,
    sides,
  );
  return out;
}

/** Fixed offered rate with ingest sampling and the accept → visible probe; then the drain. */
async function fixedRatePhase(ctx, rate, seconds) {
  const idleBefore = await waitQuiet(`fixed ${rate}/s`);
  const before = (await L.countAlerts(ctx.url, ctx.token, ctx.projectId)).total;
  const sampler = L.sampleIngest(ctx.grpc, 1000, seconds + 200);
  const probe = L.visibleProbe({
    url: ctx.url,
    token: ctx.token,
    projectId: ctx.probeProjectId,
    webhookUrl: ctx.probe.url,
    webhookToken: ctx.probe.token,
  });
  const t0 = performance.now();
  const load = L.pacedLoad(ctx.plain.url, ctx.plain.token, L.FLAT_BODY, rate, seconds);
  const { result, cpu, perReq } = await withCpu(
    ctx.pids,
    () => paced(load),
    (r) => r.ok,
  );
  const loadMs = performance.now() - t0;
  const probeDone = probe.stop(); // posts no more; its last alerts are still polled for
  const drainMs = await L.waitDrained(ctx.grpc);
  const probeOut = await probeDone;
  const samples = await sampler.stop();
  const stored = (await L.countAlerts(ctx.url, ctx.token, ctx.projectId)).total - before;
  const lat = probeOut.latencies.sort((a, b) => a - b);
  const during = samples.filter((s) => s.t <= loadMs);
  const procRate = (a, b) => (b && a && b.t > a.t ? Math.round((1000 * (b.processed - a.processed)) / (b.t - a.t)) : null);
  const out = {
    idleBefore,
    cpu,
    perReq,
    offered: rate,
    seconds,
    accepted: result.rps,
    p50: result.p50,
    p90: result.p90,
    p99: result.p99,
    max: result.max,
    statuses: result.statuses,
    dropped: result.dropped,
    lagP99: result.lagP99,
    pendingMax: Math.max(0, ...during.map((s) => s.pending)),
    pendingAtStop: during.at(-1)?.pending ?? null,
    processedRpsDuringLoad: procRate(during[1], during.at(-1)),
    drainMs,
    stored,
    storedRps: Math.round((1000 * stored) / (loadMs + (drainMs ?? 0))),
    pendingSeries: during.map((s) => s.pending),
    visible: {
      sent: probeOut.sent,
      seen: probeOut.seen,
      lost: probeOut.lost,
      failed: probeOut.failed,
      p50: L.quantile(lat, 0.5),
      p99: L.quantile(lat, 0.99),
      max: lat.at(-1),
    },
  };
  log(
    `fixed ${rate}/s: accepted ${out.accepted}/s p99 ${out.p99} ms; pending max ${out.pendingMax}; drain ${out.drainMs} ms; visible p99 ${out.visible.p99?.toFixed(0)} ms`,
  );
  return out;
}

/** Same N alerts of one fingerprint, 20 at a time: one alert with events = N. */
async function correctness(ctx, n = 200) {
  const fp = `bench-fp-${Date.now()}`;
  const body = JSON.stringify({ title: fp, fingerprint: fp, severity: "low" });
  const r = await L.cannon({ ...L.webhookLoad(ctx.plain.url, ctx.plain.token, body, {}), connections: 20, amount: n });
  await L.waitDrained(ctx.grpc, 60_000);
  const { total, first } = await L.countAlerts(ctx.url, ctx.token, ctx.projectId, fp);
  const ok = r["2xx"] === n && total === 1 && first?.events === n;
  log(`correctness: ${n} posts of one fingerprint → ${total} alert(s), events ${first?.events}: ${ok ? "ok" : "WRONG"}`);
  return { posts: n, accepted: r["2xx"], alerts: total, events: first?.events ?? null, ok };
}

/** Time of the alerts list of the loaded project (median of 10), plain and with `search`. */
async function listPhase(ctx) {
  const time = async (query) => {
    const times = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      await L.http(ctx.url, "GET", `/api/v4/projects/${ctx.projectId}/alert_management/alerts${query}`, ctx.token);
      times.push(performance.now() - t0);
    }
    return Math.round(median(times) * 10) / 10;
  };
  const alerts = (await L.countAlerts(ctx.url, ctx.token, ctx.projectId)).total;
  const r = { alerts, plainMs: await time(""), searchMs: await time("?search=no-such-alert") };
  log(`alerts list of a project with ${alerts} alerts: ${r.plainMs} ms; with search: ${r.searchMs} ms (median of 10)`);
  return r;
}

/** 100-alert Alertmanager batches, sequential: accept time. */
async function prometheusPhase(ctx) {
  if (!ctx.prometheus?.url) return { skipped: ctx.prometheus?.error ?? "no prometheus integration" };
  const out = await L.timeBatches(ctx.prometheus.url, ctx.prometheus.token);
  const drainMs = await L.waitDrained(ctx.grpc);
  const r = {
    batch: 100,
    bytes: out.bytes,
    statuses: out.statuses,
    p50: L.quantile(out.times, 0.5),
    p99: L.quantile(out.times, 0.99),
    max: out.times.at(-1),
    drainMs,
  };
  log("prometheus 100-alert batch:", r);
  return r;
}

/** RSS of gateway and alert-service every 5 s during a soak at the fixed rate. */
async function soakPhase(ctx, rate) {
  if (CFG.soak <= 0) return { skipped: "--soak 0" };
  await waitQuiet("soak");
  const series = { gateway: [], alert: [] };
  const sample = () => {
    for (const k of Object.keys(series)) series[k].push(Math.round(rssMiB(ctx.pids[k]) ?? 0));
  };
  sample();
  const timer = setInterval(sample, 5000);
  const load = L.pacedLoad(ctx.plain.url, ctx.plain.token, L.FLAT_BODY, rate, CFG.soak);
  const { result, cpu, perReq } = await withCpu(
    ctx.pids,
    () => paced(load),
    (r) => r.ok,
  );
  clearInterval(timer);
  sample();
  const drainMs = await L.waitDrained(ctx.grpc);
  await sleep(5000);
  sample();
  const stat = (xs) => ({
    start: xs[0],
    end: xs.at(-2),
    afterDrain: xs.at(-1),
    max: Math.max(...xs),
    min: Math.min(...xs),
    series: xs,
  });
  const out = {
    seconds: CFG.soak,
    offered: rate,
    accepted: result.rps,
    p99: result.p99,
    statuses: result.statuses,
    drainMs,
    cpu,
    perReq,
    gateway: stat(series.gateway),
    alert: stat(series.alert),
  };
  log(
    `soak ${CFG.soak} s at ${rate}/s: gateway RSS ${out.gateway.start}→${out.gateway.end} (max ${out.gateway.max}) MiB; alert-service ${out.alert.start}→${out.alert.end} (max ${out.alert.max}) MiB`,
  );
  return out;
}

async function baselinePhase() {
  const baseline = await startBaselineProcess();
  try {
    const body = L.FLAT_BODY;
    const idleBefore = await waitQuiet("baseline");
    const load = L.webhookLoad(`${baseline.url}/alerts/notify/x/y.json`, "x", body, { connections: CFG.connections });
    const { result, cpu, perReq } = await withCpu(
      { baseline: baseline.pid },
      () => maxRuns(load),
      (r) => r.done,
    );
    const atRate = await paced(
      L.pacedLoad(`${baseline.url}/alerts/notify/x/y.json`, "x", body, CFG.rate, Math.min(CFG.rateDuration, 10)),
    );
    log(`baseline: ${result.rps} req/s p99 ${result.p99} ms; at ${CFG.rate}/s p99 ${atRate.p99} ms; cpu`, cpu);
    return { ...result, cpu, perReq, idleBefore, atRate };
  } finally {
    await baseline.stop();
  }
}

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
    const ctx = { ...s, url: sys.url, grpc, pids: sys.procs };
    out.rssStart = { gateway: rssMiB(sys.procs.gateway), alert: rssMiB(sys.procs.alert) };
    // Warm-up (discarded): JIT, connection pools and caches of every process on the accept path.
    await L.cannon(L.webhookLoad(s.plain.url, s.plain.token, L.FLAT_BODY, { connections: CFG.connections, duration: 10 }));
    await L.waitDrained(grpc);
    out.baseline = await baselinePhase();
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
