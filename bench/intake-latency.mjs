#!/usr/bin/env node
// Single posts by connection count (issue 25 item 3): is Tocsin's single-post rate bound by CPU
// or by the time one post takes? wrk posts single alerts with 1, 4, 16, 50, 100 and 200
// connections to Tocsin's webhook and to the bare node:http server (the baseline, same run,
// alternating), and prints for each: posts/s and its share of the baseline's, p50/p90/p99, how
// busy the machine was (of 100 × cores), and the busiest threads of Tocsin's services (from
// /proc/<pid>/task: a thread at 100 % is a serial limit, a machine at 100 × cores a CPU limit;
// neither means the rate is what the connections' round trips allow). With --rounds, the sweep
// is repeated and each round also pairs the two at their best: the baseline's best rate over the
// connection counts against Tocsin's best (each at its own count), the share's median [min–max]
// over the rounds (issue 25 item 3 read at each side's max accept rate, beside the 50-connection
// reading of bench/storm.mjs).
//
// Usage: npm run build && node bench/intake-latency.mjs [options]
//   --connections LIST  wrk connection counts (default 1,4,16,50,100,200)
//   --duration S        seconds of each wrk run (default 6)
//   --queue local|redis Tocsin's queue (default local: the embedded default)
//   --rounds N          sweeps, one after another (default 1)
// Needs wrk (`apt-get install -y wrk`). See bench/README.md, "Single posts by connection count".
import { readdirSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { machineCpu, startBaselineProcess } from "./alert-system.mjs";
import { spread } from "./lib/stats.mjs";
import { quiet } from "./storm/measure.mjs";
import { startTocsin } from "./storm/tocsin.mjs";
import { wrk } from "./storm/wrk.mjs";

const { values: opt } = parseArgs({
  options: {
    connections: { type: "string", default: "1,4,16,50,100,200" },
    duration: { type: "string", default: "6" },
    queue: { type: "string", default: "local" },
    rounds: { type: "string", default: "1" },
  },
});
const CONNECTIONS = opt.connections.split(",").map(Number);
const SECONDS = Number(opt.duration);
const ROUNDS = Number(opt.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1)
  throw new Error(`--rounds: a whole number of sweeps, at least 1 (got ${opt.rounds})`);
const CLK_TCK = 100;

/** CPU ticks of each thread of `pid`, keyed `<service>/<tid>`. */
function threadTicks(service, pid) {
  const out = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out[`${service}/${tid === String(pid) ? "main" : tid}`] = Number(f[11]) + Number(f[12]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

const allTicks = (pids) => Object.assign({}, ...Object.entries(pids).map(([s, pid]) => threadTicks(s, pid)));

/** One wrk run against `target`, with the machine's and each thread's busy share meanwhile. */
async function measure(target, connections) {
  await quiet(target.pids);
  const t0 = allTicks(target.pids);
  const m0 = machineCpu();
  const start = performance.now();
  const r = await wrk({ ...target.single, connections, seconds: SECONDS });
  const wallS = (performance.now() - start) / 1000;
  const t1 = allTicks(target.pids);
  const machinePct = Math.round((100 * (machineCpu().busy - m0.busy)) / wallS);
  const threads = Object.entries(t1)
    .map(([k, v]) => [k, Math.round((100 * (v - (t0[k] ?? 0))) / CLK_TCK / wallS)])
    .filter(([, pct]) => pct >= 10)
    .sort((a, b) => b[1] - a[1]);
  return { ...r, machinePct, threads };
}

/** Prints one sweep: each connection count's rates, Tocsin's share and latency, the busy threads. */
function printRound(rows, round) {
  console.log(
    `\n=== single posts by connection count, round ${round}/${ROUNDS}, ${new Date().toISOString()}, queue ${opt.queue}, ${cpus().length} cores, ${SECONDS} s each`,
  );
  console.log("conn  baseline/s (p50 ms, machine %)  Tocsin/s  share   p50   p90   p99  machine %  threads ≥ 10 % of a core");
  for (const { c, b, t } of rows) {
    const share = b.rps ? `${((100 * t.rps) / b.rps).toFixed(1)} %` : "—";
    const threads = t.threads.map(([k, pct]) => `${k} ${pct}`).join(", ");
    console.log(
      `${String(c).padStart(4)}  ${`${b.rps} (${b.p50}, ${b.machinePct})`.padEnd(30)}  ${String(t.rps).padStart(8)}  ${share.padStart(6)}  ${String(t.p50).padStart(4)}  ${String(t.p90).padStart(4)}  ${String(t.p99).padStart(4)}  ${String(t.machinePct).padStart(9)}  ${threads}`,
    );
  }
}

/** Each side's best rate of one sweep, at its own connection count, and Tocsin's share of the baseline's. */
function peakOf(rows) {
  const best = (side) => rows.reduce((top, row) => (row[side].rps > top[side].rps ? row : top));
  const b = best("b");
  const t = best("t");
  return { baseline: b.b.rps, baselineAt: b.c, tocsin: t.t.rps, tocsinAt: t.c, tocsinP99: t.t.p99, share: t.t.rps / b.b.rps };
}

/** Every round's best against best, and the share's median [min–max]. */
function printPeaks(peaks) {
  const pct = (x) => `${(100 * x).toFixed(1)} %`;
  console.log("\n=== each side at its best connection count (per round)");
  console.log("round  baseline/s (conn)  Tocsin/s (conn, p99 ms)  share");
  peaks.forEach((p, i) => {
    console.log(
      `${String(i + 1).padStart(5)}  ${`${p.baseline} (${p.baselineAt})`.padEnd(17)}  ${`${p.tocsin} (${p.tocsinAt}, ${p.tocsinP99})`.padEnd(23)}  ${pct(p.share)}`,
    );
  });
  const share = spread(peaks.map((p) => p.share));
  console.log(`share, median [min–max]: ${pct(share.median)} [${pct(share.min)}–${pct(share.max)}]`);
}

async function main() {
  const stack = [];
  try {
    const baseline = await startBaselineProcess();
    stack.push(baseline.stop);
    const tocsin = await startTocsin(opt.queue);
    stack.push(tocsin.stop);
    const s = tocsin.seed;
    const targets = {
      baseline: {
        pids: { baseline: baseline.pid },
        single: { url: `${baseline.url}/alerts/notify/storm/baseline.json`, shape: "flat", size: 1 },
      },
      tocsin: {
        pids: tocsin.pids,
        single: { url: s.plain.url, headers: { authorization: `Bearer ${s.plain.token}` }, shape: "flat", size: 1 },
      },
    };
    // Warm-up (discarded): JIT, caches, the first WAL pages.
    for (const t of Object.values(targets)) await wrk({ ...t.single, connections: 50, seconds: 2 });
    const peaks = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const rows = [];
      for (const c of CONNECTIONS) {
        const b = await measure(targets.baseline, c);
        const t = await measure(targets.tocsin, c);
        rows.push({ c, b, t });
        console.error(
          `[${new Date().toISOString().slice(11, 19)}] round ${round}, ${c} connections: baseline ${b.rps}/s, Tocsin ${t.rps}/s`,
        );
      }
      printRound(rows, round);
      peaks.push(peakOf(rows));
    }
    printPeaks(peaks);
  } finally {
    for (const stop of stack.reverse()) await stop().catch(() => undefined);
  }
}

await main();
