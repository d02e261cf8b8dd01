#!/usr/bin/env node
// Alert storms (issue 9): Tocsin's webhook side by side with a plain node:http server and with
// Prometheus Alertmanager, in one run, rounds alternating so that drifting load hits all three.
// See bench/README.md, section "Alert storms (issue 9)".
//
// Usage: npm run build && node bench/storm.mjs [options]
//   --rounds N       rounds of single and batch posts (default 3; --quick 1)
//   --duration S     seconds of each wrk run (default 8; --quick 3)
//   --paced S        seconds of the run at 80 % of the max accept rate (default 60; --quick 10)
//   --half S         seconds of the runs at 50 % of it, Tocsin and baseline (default 30; --quick 5)
//   --quick          everything short (≈ 2 min), for iterations
//   --only LIST      single,batch,paced (default all; paced needs single for the max rate, or --rate)
//   --rate N         max accept rate to pace from, instead of the measured one
//   --queue LIST     local,redis,mongo,silenced: Tocsin variants, each its own column (default local);
//                    silenced: local with --silences N active silences (default 1000; issue 24)
//   --cpu-prof DIR   gateway and alert-service under --cpu-prof (`node bench/alert-profile.mjs DIR/<variant>`)
//   --json FILE      every figure as JSON (default bench/results/storm-<date>.json)
// Single posts: wrk, 1 thread, 50 connections, a distinct ~150-byte alert per request. Batches:
// 100 alerts per post, 10 connections. Loopback only; every wait is bounded. Each Tocsin column
// also gives alert-service's busiest thread's time on a core and time ready but waiting for one
// (Linux schedstat): a thread that waits much is bound by the cores, not by its own work.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ROOT, startBaselineProcess } from "./alert-system.mjs";
import { median } from "./lib/stats.mjs";
import { alertmanagerCount, startAlertmanager } from "./storm/alertmanager.mjs";
import { issue25Rows, issue25Table } from "./storm/issue25.mjs";
import { quiet } from "./storm/measure.mjs";
import { correctness, pacedBaseline, pacedPhase, round } from "./storm/phases.mjs";
import { kindTable, targetsTable } from "./storm/report.mjs";
import { silenceRows, silenceTable } from "./storm/silences.mjs";
import { listed, startTocsin, waitProcessed } from "./storm/tocsin.mjs";

const { values: opt } = parseArgs({
  options: {
    rounds: { type: "string" },
    duration: { type: "string" },
    paced: { type: "string" },
    half: { type: "string" },
    quick: { type: "boolean", default: false },
    only: { type: "string", default: "single,batch,paced" },
    rate: { type: "string" },
    queue: { type: "string", default: "local" },
    silences: { type: "string", default: "1000" },
    "cpu-prof": { type: "string" },
    json: { type: "string" },
  },
});
const pick = (v, full, quick) => Number(v ?? (opt.quick ? quick : full));
const CFG = {
  rounds: pick(opt.rounds, 3, 1),
  duration: pick(opt.duration, 8, 3),
  paced: pick(opt.paced, 60, 10),
  half: pick(opt.half, 30, 5),
  drainLimitMs: opt.quick ? 60_000 : 300_000,
  only: opt.only.split(",").map((s) => s.trim()),
  variants: opt.queue.split(",").map((s) => s.trim()),
};
for (const v of CFG.variants)
  if (!["local", "redis", "mongo", "silenced"].includes(v)) throw new Error(`--queue: unknown variant ${v}`);
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);
const git = (...args) => {
  try {
    return execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
};

const SINGLE = { connections: 50, size: 1 };
const BATCH = { connections: 10, size: 100 };
const bearer = (token) => ({ authorization: `Bearer ${token}` });

async function startTargets(stack) {
  const baseline = await startBaselineProcess();
  stack.push(baseline.stop);
  const am = await startAlertmanager();
  stack.push(am.stop);
  const amUrl = `${am.url}/api/v2/alerts`;
  const check = await fetch(amUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '[{"labels":{"alertname":"smoke"}}]',
  });
  if (!check.ok || (await alertmanagerCount(am.url)) !== 1)
    throw new Error(`alertmanager did not take the smoke alert (${check.status})`);
  const blUrl = `${baseline.url}/alerts/notify/storm/baseline.json`;
  const targets = [
    {
      name: "baseline node:http",
      pids: { baseline: baseline.pid },
      single: { url: blUrl, shape: "flat", size: 1 },
      batch: { url: blUrl, shape: "hook", size: BATCH.size },
    },
    {
      name: `Alertmanager ${am.version}`,
      pids: { alertmanager: am.pid },
      single: { url: amUrl, shape: "am", size: 1 },
      batch: { url: amUrl, shape: "am", size: BATCH.size },
    },
  ];
  for (const variant of CFG.variants) {
    log(`starting Tocsin (${variant}) ...`);
    const t = await startTocsin(variant, { cpuProfDir: opt["cpu-prof"], silences: Number(opt.silences) });
    stack.push(t.stop);
    const s = t.seed;
    targets.push({
      ...t,
      single: { url: s.plain.url, headers: bearer(s.plain.token), shape: "flat", size: 1 },
      batch: { url: s.prometheus.url, headers: bearer(s.prometheus.token), shape: "hook", size: BATCH.size },
      count: () => listed(t),
      // Jobs accepted but not yet processed (GetIngestStats), read the moment wrk stops.
      backlog: async () => (await t.grpc.getIngestStats({}, { requestId: "storm-backlog" }).catch(() => null))?.pending ?? null,
      // The backlog bound's counters (INGEST_BACKLOG_LIMIT): requests held, ms held, let in overdue.
      held: async () => {
        const s = await t.grpc.getIngestStats({}, { requestId: "storm-held" }).catch(() => null);
        return s ? { held: Number(s.held), heldMs: Number(s.heldMs), overdue: Number(s.heldOverdue) } : null;
      },
      settle: (expected, limitMs, t0) => waitProcessed(t, expected, limitMs, t0),
    });
  }
  return targets;
}

async function main() {
  const started = new Date();
  const head = {
    date: started.toISOString(),
    commit: git("rev-parse", "--short", "HEAD"),
    dirty: git("status", "--porcelain") !== "",
    node: process.version,
    cores: cpus().length,
    loadavgStart: loadavg().map((x) => Math.round(x * 100) / 100),
    command: `node bench/storm.mjs ${process.argv.slice(2).join(" ")}`.trim(),
    config: CFG,
  };
  log(
    `storm: commit ${head.commit}${head.dirty ? " (dirty tree)" : ""}, node ${head.node}, ${head.cores} cores, load ${head.loadavgStart.join(" ")}`,
    CFG,
  );
  const stack = [];
  const rounds = {};
  const extra = {};
  let failed = null;
  let targets = [];
  try {
    targets = await startTargets(stack);
    for (const t of targets) rounds[t.name] = { single: [], batch: [] };
    const tocsins = targets.slice(2);
    // Warm-up, thrown away: JIT, pools and caches of every process on the path.
    for (const t of targets)
      await round(t, "single", { ...SINGLE, seconds: 2, drainLimitMs: CFG.drainLimitMs, label: "warm-up (discarded)" });
    for (let i = 0; i < CFG.rounds; i++) {
      log(
        `# round ${i + 1}/${CFG.rounds}, load ${loadavg()
          .map((x) => x.toFixed(2))
          .join(" ")}`,
      );
      for (const kind of ["single", "batch"]) {
        if (!CFG.only.includes(kind)) continue;
        const shape = kind === "single" ? SINGLE : BATCH;
        for (const t of targets) {
          let waited = 0;
          // Profiled processes never fall under quiet's 5 % (the profiler samples them at rest):
          // a shorter bound there, where the figures are for the profile, not for the ratios.
          for (const u of targets) waited += await quiet(u.pids, opt["cpu-prof"] ? { maxMs: 10_000 } : undefined);
          if (waited > 1000) log(`waited ${waited} ms for the targets' processes to go idle`);
          rounds[t.name][kind].push(await round(t, kind, { ...shape, seconds: CFG.duration, drainLimitMs: CFG.drainLimitMs }));
        }
      }
    }
    if (CFG.only.includes("paced")) {
      for (const t of tocsins) {
        const max = Number(opt.rate ?? median(rounds[t.name].single.map((r) => r.rps)));
        if (!max) throw new Error("paced: no max accept rate (run single too, or pass --rate)");
        extra[t.name] = { maxRate: max };
        extra[t.name].paced = await pacedPhase(t, Math.round(0.8 * max), CFG.paced, CFG.drainLimitMs);
        const half = Math.round(0.5 * max);
        extra[t.name].half = {
          tocsin: await pacedPhase(t, half, CFG.half, CFG.drainLimitMs),
          baseline: await pacedBaseline(targets[0], half, CFG.half),
        };
      }
    }
    for (const t of tocsins) {
      extra[t.name] ??= {};
      extra[t.name].correctness = await correctness(t);
    }
  } catch (err) {
    failed = err;
    log(`FAILED: ${err.stack ?? err.message}`);
  } finally {
    for (const stop of stack.reverse()) await stop().catch((err) => log(`stop: ${err.message}`));
  }
  head.loadavgEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  const tag = `${head.commit}${head.dirty ? "+dirty" : ""}`;
  console.log(
    `\n=== storm ${head.date.slice(0, 16)}Z, commit ${tag}, node ${head.node}, ${head.cores} cores, load ${head.loadavgStart.join(" ")} → ${head.loadavgEnd.join(" ")}`,
  );
  console.log(`    ${head.command}`);
  if (targets.length) {
    const single = `Single-alert posts (wrk 1 thread, ${SINGLE.connections} connections, ${CFG.duration} s × ${CFG.rounds}; median [min–max])`;
    if (CFG.only.includes("single")) kindTable(single, "single", targets, rounds);
    const batch = `Alertmanager-shaped batches (${BATCH.size} alerts per post, ${BATCH.connections} connections, ${CFG.duration} s × ${CFG.rounds})`;
    if (CFG.only.includes("batch")) kindTable(batch, "batch", targets, rounds);
    targetsTable(targets, rounds, extra);
  }
  const issue25 = targets.length ? issue25Rows(targets, rounds) : [];
  issue25Table(issue25);
  const silenced = targets.length ? silenceRows(targets, rounds) : [];
  silenceTable(silenced, Number(opt.silences));
  const record = { ...head, targets: targets.map((t) => t.name), rounds, extra, issue25, silenced, error: failed?.message };
  const file = opt.json ?? join(ROOT, "bench", "results", `storm-${head.date.replace(/[:.]/g, "-")}.json`);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, JSON.stringify(record, null, 2));
  log(`figures written to ${file}`);
  process.exit(failed ? 1 : 0);
}

await main();
