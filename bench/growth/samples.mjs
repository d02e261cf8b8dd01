// bench/growth.mjs helper: jobs through the real processing use-case (`processAlertJobs`) in
// batches, and the sample taken at the start, at each checkpoint and at the end: `intake` (new
// alerts), `mixed` (half repeats and resolves) and the alert list's first page.

import { median } from "../lib/stats.mjs";
import { processAlertJobs } from "./service.mjs";

/** ms spent per `command collection` (MongoDB mode with `--profile`), since the last `takeProfile`. */
export const profile = new Map();
function takeProfile(jobs) {
  const out = Object.fromEntries(
    [...profile.entries()].sort((a, b) => b[1] - a[1]).map(([k, ms]) => [k, Number((ms / jobs).toPrecision(3))]),
  );
  profile.clear();
  return out;
}

/**
 * `{ run(deps, jobs, concurrency), sample(deps, stores, tag, concurrency, parts?) }` for batches of
 * `batchSize` jobs (`--batch`), samples of `sampleSize` jobs (`--sample`) and `listReps` calls of
 * the list (`--list-reps`), with the jobs of `newJobs` and `mixedJobs` (./jobs.mjs).
 */
export function workload({ batchSize, sampleSize, listReps, newJobs, mixedJobs }) {
  /** Runs `jobs` in batches of `--batch`, `concurrency` batches at a time (batches never share a fingerprint). */
  async function run(deps, jobs, concurrency) {
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const batch = jobs.slice(next, next + batchSize);
        next += batchSize;
        const { outcomes, error } = await processAlertJobs(deps, batch);
        if (error || outcomes.length !== batch.length) throw error ?? new Error("short batch");
      }
    };
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const s = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    return { rate: jobs.length / s, cpuMsPerJob: (cpu.user + cpu.system) / 1000 / jobs.length };
  }

  async function listFirstPage(stores) {
    const times = [];
    let total = 0;
    for (let i = 0; i < listReps; i++) {
      const t0 = performance.now();
      const page = await stores.alerts.list(1, { orderBy: "created_at", sort: "desc", offset: 0, limit: 20 });
      times.push(performance.now() - t0);
      total = page.total;
      if (page.alerts.length === 0) throw new Error("empty first page");
    }
    return { ms: median(times), total };
  }

  async function sample(deps, stores, tag, concurrency, parts = ["intake", "mixed", "list"]) {
    profile.clear();
    const out = {};
    if (parts.includes("intake")) {
      out.intake = await run(deps, newJobs(`${tag}-intake`, sampleSize), concurrency);
      out.intake.msPerJob = takeProfile(sampleSize);
    }
    if (parts.includes("mixed")) {
      out.mixed = await run(deps, mixedJobs(`${tag}-mixed`, sampleSize), concurrency);
      out.mixed.msPerJob = takeProfile(sampleSize);
    }
    if (!parts.includes("list")) return out;
    out.list = await listFirstPage(stores);
    out.list.msPerCall = takeProfile(listReps);
    return out;
  }

  return { run, sample };
}
