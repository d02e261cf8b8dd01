// bench/alert-intake.mjs helper: CPU accounting of the processes under test (and of the rest of
// the machine), the wait for an idle machine before a phase, and max-throughput runs.
import { performance } from "node:perf_hooks";
import * as L from "../alert-load.mjs";
import { cpuSeconds, machineCpu, sleep } from "../alert-system.mjs";
import { median } from "../lib/stats.mjs";

const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/**
 * CPU used during `fn`, in % of one core: per process, by this process (`bench`: load generator
 * and probes), by the whole machine (`machine`, out of 200% on 2 cores) and by everything else
 * on it (`other`: processes not part of this benchmark). With `count(result)` (requests done),
 * also the CPU milliseconds per request of each process (`perReq`), which foreign load on the
 * machine disturbs much less than req/s.
 */
export async function withCpu(pids, fn, count) {
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
 * Waits (at most `limitS` s, `--quiet-wait`) until the machine is nearly idle (< 30% of one core busy over
 * 2 s) so that other work on it disturbs the next phase less; resolves to the last busy %.
 */
export async function waitQuiet(label, limitS) {
  const limit = limitS * 1000;
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

/** `cfg.runs` measured runs of `cfg.duration` s after a 3 s warm-up; the run with the median req/s is reported. */
export async function maxRuns(opts, cfg) {
  const warm = await L.cannon({ ...opts, duration: 3 });
  const runs = [];
  for (let i = 0; i < cfg.runs; i++) runs.push(L.summarize(await L.cannon({ ...opts, duration: cfg.duration })));
  const m = median(runs.map((r) => r.rps));
  const done = warm["2xx"] + runs.reduce((a, r) => a + r.n2xx, 0);
  return { ...runs.find((r) => r.rps === m), runs: runs.map((r) => r.rps), done };
}
