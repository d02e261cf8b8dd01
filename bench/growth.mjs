#!/usr/bin/env node
// Cost as the store grows (issue 25 items 4 and 5): the real alert stores and the real processing
// use-case (`processAlertJobs`), no queue, gRPC or HTTP, on the embedded store (SQLite, a
// temporary DATA_DIR, opened as alert-service opens it) and in MongoDB mode (a private FerretDB
// 1.24 on its SQLite backend, as in the tests, or with `--ferret postgresql` on PostgreSQL). Per mode:
//
//   1. a sample at the start (after `--sample` alerts): `intake` = `--sample` new alerts (own
//      fingerprint each); `mixed` = `--sample` jobs of which half are new alerts and half are
//      repeats and resolves of them (per 4 jobs: new, repeat, new, resolve of the first); the
//      alert list's first page (`list`, 20 newest, with its total: the console's default), the
//      median of `--list-reps` calls;
//   2. growth to `--embedded` (1,000,000) / `--mongo` (100,000) alerts with new alerts through
//      the same use-case, as fast as it goes (batches of `--batch` jobs, 64 unless said: the
//      processing thread on the SQLite queue takes 256, `--concurrency` batches at a
//      time in MongoDB mode), logging the rate per tenth;
//   3. the same sample at the end, and at each `--checkpoints` size on the way (20,000: item 4's
//      "rate after 20,000 ÷ first 1,000"); ratios end ÷ start.
//
// Same-run references, at the start and at the end of each mode: a bare `node:http` server
// (bench/baseline.mjs, own process) and Prometheus Alertmanager v0.28.1 (bench/storm/, single
// alerts POSTed to /api/v2/alerts), both with `--ref-seconds` of 20 loops of single posts; every
// rate is also reported as a fraction of the node:http rate measured beside it (the machine is
// shared: that ratio moves less than the absolute rate).
//
//   npm run build && node bench/growth.mjs                  # both modes, full sizes
//   node bench/growth.mjs --modes mongo --mongo 20000       # item 4's mixed workload at 20,000
//   node bench/growth.mjs --embedded 100000 --mongo 10000   # shorter
// Options: --modes embedded,mongo  --sample 1000  --list-reps 5  --concurrency 4
//          --batch 64  --ref-seconds 3  --no-alertmanager  --profile (MongoDB mode: ms per job spent in each
//          command × collection during each sample, from the driver's command monitoring)
//          --mongo-url URL --sample-only intake,list: one sample (of those parts) of the store a
//          server already holds (database tocsin_growth, e.g. left by a run stopped after growing)
//          --cache-mib N: embedded, SQLite's page cache of the connection (an experiment)  --json FILE (default bench/results/growth-<time>.json, not committed)
//          --wal elsewhere|here: embedded, who checkpoints alert.db's WAL: a checkpoint thread, as
//          the processing thread has it (default), or the writer's own commits (before 2026-11-29)
//          --fingerprints random|ordered: embedded and MongoDB, SHA-1 fingerprints as monitors send
//          them (default), or keys in the order they are first seen (an experiment: what the
//          random keys of the fingerprint index cost as the store grows)
//          --ferret sqlite|postgresql: MongoDB mode, FerretDB's backend (sqlite unless said; postgresql
//          on a fresh database of --postgres-url's server, postgres://postgres@127.0.0.1:5432/,
//          dropped at the end)  --id-indexes: after the warm-up, scripts/ferretdb-postgres-id-indexes.sql
//          or scripts/ferretdb-sqlite-id-indexes.mjs (indexes that serve FerretDB's reads by `_id`),
//          then FerretDB restarted on the same data
//          --console-poll: at the end, processing (repeats of 256 open alerts for --console-seconds, 60:
//          the store keeps its size) alone, beside a
//          console's alerts page polling the store at a fixed 3 s (the console before 2026-12-03:
//          TanStack Query starts a poll on the interval's tick once the last has answered), and
//          beside the same page backing off (web/src/api/polling.ts: the next poll after at least
//          5 × the last answer's time); reports each rate ÷ alone and the share of the time the
//          page's queries were in flight; then alone again (--console-policies fixed,backoff: which pages)
//          --console-deadline-ms 5000: each of the page's store calls ends at this deadline from its
//          poll's start (the gateway's deadline on an alert-service call; the store neither starts nor
//          continues a list after it), and a poll that failed counts as failed; a policy named with
//          `-unbounded` (fixed-unbounded) passes none, as every list did before 2026-12-03's afternoon
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ROOT, startBaselineProcess } from "./alert-system.mjs";
import { consolePolling } from "./growth/console-poll.mjs";
import { openEmbedded } from "./growth/embedded.mjs";
import { jobMaker } from "./growth/jobs.mjs";
import { openMongo } from "./growth/mongo.mjs";
import { references as referencesFor } from "./growth/references.mjs";
import { report } from "./growth/report.mjs";
import { profile, workload } from "./growth/samples.mjs";
import { createReactions } from "./growth/service.mjs";
import { startAlertmanager } from "./storm/alertmanager.mjs";

const { values: opt } = parseArgs({
  options: {
    modes: { type: "string", default: "embedded,mongo" },
    embedded: { type: "string", default: "1000000" },
    mongo: { type: "string", default: "100000" },
    sample: { type: "string", default: "1000" },
    "list-reps": { type: "string", default: "5" },
    concurrency: { type: "string", default: "4" },
    "ref-seconds": { type: "string", default: "3" },
    checkpoints: { type: "string", default: "20000" },
    profile: { type: "boolean", default: false },
    "mongo-url": { type: "string" },
    "cache-mib": { type: "string" },
    "sample-only": { type: "string" },
    "no-alertmanager": { type: "boolean", default: false },
    json: { type: "string" },
    batch: { type: "string", default: "64" },
    wal: { type: "string", default: "elsewhere" },
    fingerprints: { type: "string", default: "random" },
    ferret: { type: "string", default: "sqlite" },
    "postgres-url": { type: "string", default: "postgres://postgres@127.0.0.1:5432/" },
    "id-indexes": { type: "boolean", default: false },
    "console-poll": { type: "boolean", default: false },
    "console-seconds": { type: "string", default: "60" },
    "console-policies": { type: "string", default: "fixed,backoff" },
    "console-deadline-ms": { type: "string", default: "5000" },
  },
});
// Checked before any server starts (embedded: who checkpoints alert.db's WAL).
if (!["here", "elsewhere"].includes(opt.wal)) throw new Error("--wal is elsewhere or here");
if (!["random", "ordered"].includes(opt.fingerprints)) throw new Error("--fingerprints is random or ordered");
if (!["sqlite", "postgresql"].includes(opt.ferret)) throw new Error("--ferret is sqlite or postgresql");
if (opt["id-indexes"] && opt["mongo-url"]) throw new Error("--id-indexes needs a FerretDB this run starts (no --mongo-url)");
const SAMPLE = Number(opt.sample);
const BATCH = Number(opt.batch);
const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

const { newJobs, mixedJobs } = jobMaker(opt.fingerprints);
const { run, sample } = workload({
  batchSize: BATCH,
  sampleSize: SAMPLE,
  listReps: Number(opt["list-reps"]),
  newJobs,
  mixedJobs,
});
const references = (refs) => referencesFor(refs, Number(opt["ref-seconds"]));
const openMode = (mode) => (mode === "embedded" ? openEmbedded(opt) : openMongo(opt));

async function runMode(mode, refs) {
  const m = await openMode(mode);
  try {
    const depsOf = (stores) => ({
      stores,
      clock: { now: () => new Date() },
      jobs: { enqueueIncident: async () => {}, enqueueFollowUps: async () => {} },
      reactions: createReactions([], (projectId) => stores.incidents.settings(projectId)),
    });
    let deps = depsOf(m.stores);
    const refStart = await references(refs);
    if (opt["sample-only"]) {
      const only = await sample(deps, m.stores, `only${Date.now()}`, m.concurrency, opt["sample-only"].split(","));
      log(mode, "sample", JSON.stringify(only), JSON.stringify(refStart));
      return { mode, only, refStart };
    }
    await run(deps, newJobs("warm", SAMPLE), m.concurrency);
    await run(deps, mixedJobs("warm", BATCH * m.concurrency), m.concurrency);
    const restarted = await m.afterWarmUp?.();
    if (restarted) {
      m.stores = restarted;
      deps = depsOf(restarted);
    }
    const start = await sample(deps, m.stores, "start", m.concurrency);
    log(mode, "start", JSON.stringify(start), JSON.stringify(refStart));
    const grow = [];
    const checkpoints = [];
    const marks = opt.checkpoints
      .split(",")
      .map(Number)
      .filter((c) => c > start.list.total && c < m.target);
    let size = start.list.total;
    const step = Math.max(BATCH, Math.ceil((m.target - size - 2 * SAMPLE) / 10 / BATCH) * BATCH);
    let round = 0;
    profile.clear();
    while (size + SAMPLE * 1.5 < m.target) {
      const mark = marks[0];
      let n = Math.min(step, Math.max(BATCH, m.target - size - Math.round(SAMPLE * 1.5)));
      if (mark !== undefined) n = Math.min(n, mark - size);
      const r = await run(deps, newJobs(`grow${round++}`, n), m.concurrency);
      profile.clear();
      grow.push({ from: size, size: size + n, rate: r.rate });
      size += n;
      log(mode, `grown to ${size}: ${r.rate.toFixed(0)} alerts/s`);
      if (mark !== undefined && size >= mark) {
        marks.shift();
        const at = await sample(deps, m.stores, `mark${mark}`, m.concurrency);
        checkpoints.push({ size: mark, ...at, ref: await references(refs) });
        size = at.list.total;
        log(mode, `checkpoint ${mark}`, JSON.stringify(checkpoints.at(-1)));
      }
    }
    const end = await sample(deps, m.stores, "end", m.concurrency);
    log(mode, "end sample", JSON.stringify(end));
    const refEnd = await references(refs);
    log(mode, "end", JSON.stringify(end), JSON.stringify(refEnd));
    const polling = opt["console-poll"]
      ? await consolePolling(deps, m.stores, m.concurrency, opt, { batchSize: BATCH, run, newJobs })
      : undefined;
    return { mode, target: m.target, start, end, refStart, refEnd, grow, checkpoints, polling };
  } finally {
    await m.close();
  }
}

const refs = { baseline: await startBaselineProcess() };
if (!opt["no-alertmanager"]) refs.am = await startAlertmanager();
const results = [];
try {
  for (const mode of opt.modes.split(",")) results.push(await runMode(mode, refs));
} finally {
  await refs.baseline.stop();
  await refs.am?.stop();
}
console.log(report(results, opt));
const file = opt.json ?? join(ROOT, "bench", "results", `growth-${new Date().toISOString().slice(0, 16)}.json`);
mkdirSync(join(file, ".."), { recursive: true });
writeFileSync(file, JSON.stringify({ options: opt, results }, null, 2));
log("results in", file);
