// bench/storm.mjs helper: CPU accounting from /proc and small statistics.
import { cpuSeconds, machineCpu } from "../alert-system.mjs";

/**
 * Runs `fn` and measures the CPU seconds each process of `pids` ({name: pid}) used meanwhile, and
 * the machine's busy share. Resolves to `{ result, wallS, cpuS: {name: s}, machinePct }`
 * (machinePct out of 100 × cores).
 */
export async function withCpu(pids, fn) {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const m0 = machineCpu();
  const t0 = performance.now();
  const result = await fn();
  const wallS = (performance.now() - t0) / 1000;
  const cpuS = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, (cpuSeconds(pid) ?? 0) - (before[k] ?? 0)]));
  const machinePct = Math.round((100 * (machineCpu().busy - m0.busy)) / wallS);
  return { result, wallS, cpuS, machinePct };
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

export const median = (xs) => {
  const v = xs.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return null;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
};

/** `{ median, min, max }` of the finite numbers of `xs` (null when there are none). */
export function spread(xs) {
  const v = xs.filter((x) => typeof x === "number" && Number.isFinite(x));
  if (!v.length) return { median: null, min: null, max: null };
  return { median: median(v), min: Math.min(...v), max: Math.max(...v) };
}
