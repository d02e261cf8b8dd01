// bench/storm.mjs helper: CPU accounting from /proc (its statistics are in ../lib/stats.mjs).
import { readdirSync, readFileSync } from "node:fs";
import { cpuSeconds, machineCpu } from "../alert-system.mjs";

/** Per thread of `pid`: ns on a core and ns ready but waiting for one (Linux `schedstat`); empty when unreadable. */
function threadSched(pid) {
  const out = new Map();
  if (!pid) return out;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ").map(Number);
      out.set(tid, { run, wait });
    }
  } catch {
    // A process gone, or a kernel without schedstat: no figure.
  }
  return out;
}

/**
 * alert-service's busiest thread over the window (its processing thread in a batch storm): the
 * share of the wall time it ran and the share it was ready but waited for a core, in %. A thread
 * that waits much is bound by the cores the other processes share, not by its own work
 * (bench/notes/2026-12-02-insert-values.md, section 4); a CPU profile counts that wait as busy.
 */
function busiestThread(before, after, wallS) {
  let best;
  for (const [tid, a] of after) {
    const b = before.get(tid);
    if (!b) continue;
    const run = a.run - b.run;
    if (!best || run > best.run) best = { run, wait: a.wait - b.wait };
  }
  if (!best) return null;
  const pct = (ns) => Math.round(ns / 1e7 / wallS);
  return { runPct: pct(best.run), waitPct: pct(best.wait) };
}

/**
 * Runs `fn` and measures the CPU seconds each process of `pids` ({name: pid}) used meanwhile, and
 * the machine's busy share. Resolves to `{ result, wallS, cpuS: {name: s}, machinePct, busiest }`
 * (machinePct out of 100 × cores; busiest: alert-service's busiest thread, see `busiestThread`).
 */
export async function withCpu(pids, fn) {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const sched0 = threadSched(pids.alert);
  const m0 = machineCpu();
  const t0 = performance.now();
  const result = await fn();
  const wallS = (performance.now() - t0) / 1000;
  const cpuS = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, (cpuSeconds(pid) ?? 0) - (before[k] ?? 0)]));
  const machinePct = Math.round((100 * (machineCpu().busy - m0.busy)) / wallS);
  const busiest = busiestThread(sched0, threadSched(pids.alert), wallS);
  return { result, wallS, cpuS, machinePct, busiest };
}

/**
 * Waits until the processes of `pids` ({name: pid}) together use under `idlePct` % of a core
 * over `calm` windows of `windowMs` in a row, at most `maxMs`; resolves to the ms waited.
 * Alertmanager keeps dispatching the alerts of its round after wrk stops (≈ 80 % of a core for
 * tens of seconds after a batch round); the next target's round waits for it, so that no target
 * is measured beside another's leftover work. Ask it of one target's processes at a time: a
 * Tocsin stack at rest keeps 2–4 % of a core busy (its queue polls and health checks), and two
 * stacks beside Alertmanager stayed over 5 % together, so that every wait ran to its limit.
 */
export async function quiet(pids, { idlePct = 5, windowMs = 250, calm = 4, maxMs = 120_000 } = {}) {
  const t0 = performance.now();
  const total = () => Object.values(pids).reduce((s, pid) => s + (cpuSeconds(pid) ?? 0), 0);
  for (let calmFor = 0; ; ) {
    const before = total();
    await new Promise((r) => setTimeout(r, windowMs));
    const pct = (100 * (total() - before)) / (windowMs / 1000);
    calmFor = pct < idlePct ? calmFor + 1 : 0;
    const waited = performance.now() - t0;
    if (calmFor >= calm || waited >= maxMs) return Math.round(waited);
  }
}

/** CPU milliseconds per item of each process, rounded to 3 decimals. */
export function perItem(cpuS, n) {
  if (!n) return {};
  return Object.fromEntries(Object.entries(cpuS).map(([k, s]) => [k, Math.round((1e6 * s) / n) / 1000]));
}
