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
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { MongoClient } from "mongodb";
import { freshPostgres, ROOT, startBaselineProcess, startFerretDb } from "./alert-system.mjs";
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
const dist = (p) => pathToFileURL(join(ROOT, "alert-service/dist", p)).href;

const { openSqlite } = await import("@tocsin/store");
const { createLogger, uuidV7 } = await import("@tocsin/core");
const { startCheckpointThread } = await import(dist("thread/checkpoint-thread.js"));
const { createSqliteAlertsStores } = await import(dist("store/alerts/sqlite-stores.js"));
const { createMongoAlertsStores } = await import(dist("store/alerts/mongo-stores.js"));
const { processAlertJobs } = await import(dist("domain/alerts/processing.js"));
const { createReactions } = await import(dist("domain/alerts/reactions.js"));

/**
 * The stored fingerprint of a name: its SHA-1, as monitors send them (each new alert's key lands
 * on a leaf of its own of the fingerprint index), or with `--fingerprints ordered` a key that
 * sorts in the order names are first seen (new keys append to the index: what the random ones
 * cost, priced).
 */
const firstSeen = new Map();
function storedFingerprint(name) {
  if (opt.fingerprints === "random") return createHash("sha1").update(name).digest("hex");
  if (!firstSeen.has(name)) firstSeen.set(name, firstSeen.size);
  return `fp${String(firstSeen.get(name)).padStart(14, "0")}`;
}

/** A job of project 1 for `fingerprint`; a recovery when `resolve`. */
function jobOf(fingerprint, resolve = false) {
  const title = `growth ${fingerprint}`;
  const id = uuidV7();
  const now = new Date().toISOString();
  return {
    jobId: id,
    requestId: id,
    projectId: 1,
    integrationId: 7,
    alert: {
      title,
      description: "CPU above 90% on the web tier",
      service: "web",
      monitoringTool: "growth",
      hosts: ["web-1"],
      severity: "high",
      startedAt: now,
      ...(resolve ? { endedAt: now } : {}),
      fingerprint: storedFingerprint(fingerprint),
      source: "growth",
      payload: { title, fingerprint },
    },
  };
}

const newJobs = (tag, n) => Array.from({ length: n }, (_, i) => jobOf(`${tag}-${i}`));
/** Half new alerts, half repeats and resolves of them: per 4 jobs new a, repeat a, new b, resolve a. */
function mixedJobs(tag, n) {
  const out = [];
  for (let i = 0; out.length < n; i++) {
    const a = `${tag}-${i}-a`;
    out.push(jobOf(a), jobOf(a), jobOf(`${tag}-${i}-b`), jobOf(a, true));
  }
  return out.slice(0, n);
}

/** Runs `jobs` in batches of `--batch`, `concurrency` batches at a time (batches never share a fingerprint). */
async function run(deps, jobs, concurrency) {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const batch = jobs.slice(next, next + BATCH);
      next += BATCH;
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

const DB_NAME = "tocsin_growth";
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function listFirstPage(stores) {
  const times = [];
  let total = 0;
  for (let i = 0; i < Number(opt["list-reps"]); i++) {
    const t0 = performance.now();
    const page = await stores.alerts.list(1, { orderBy: "created_at", sort: "desc", offset: 0, limit: 20 });
    times.push(performance.now() - t0);
    total = page.total;
    if (page.alerts.length === 0) throw new Error("empty first page");
  }
  return { ms: median(times), total };
}

/** Single posts per second from 20 loops for `--ref-seconds`. */
async function postRate(url, bodyOf) {
  const end = performance.now() + Number(opt["ref-seconds"]) * 1000;
  let n = 0;
  let i = 0;
  const loop = async () => {
    while (performance.now() < end) {
      // A refused or reset connection (a busy machine) is a failed post, not the end of the run.
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: bodyOf(i++) }).catch(
        () => undefined,
      );
      await res?.arrayBuffer();
      if (res && res.status < 300) n++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 20 }, loop));
  return n / ((performance.now() - t0) / 1000);
}

async function references(refs) {
  const baseline = await postRate(`${refs.baseline.url}/alerts`, (i) => JSON.stringify({ title: `ref ${i}`, severity: "high" }));
  const am = refs.am
    ? await postRate(`${refs.am.url}/api/v2/alerts`, (i) =>
        JSON.stringify([{ labels: { alertname: `Ref${i}`, severity: "high" }, annotations: { summary: "ref" } }]),
      )
    : undefined;
  return { baseline, alertmanager: am, load1: loadavg()[0] };
}

/** ms spent per `command collection` (MongoDB mode with `--profile`), since the last `takeProfile`. */
const profile = new Map();
function takeProfile(jobs) {
  const out = Object.fromEntries(
    [...profile.entries()].sort((a, b) => b[1] - a[1]).map(([k, ms]) => [k, Number((ms / jobs).toPrecision(3))]),
  );
  profile.clear();
  return out;
}

async function sample(deps, stores, tag, concurrency, parts = ["intake", "mixed", "list"]) {
  profile.clear();
  const out = {};
  if (parts.includes("intake")) {
    out.intake = await run(deps, newJobs(`${tag}-intake`, SAMPLE), concurrency);
    out.intake.msPerJob = takeProfile(SAMPLE);
  }
  if (parts.includes("mixed")) {
    out.mixed = await run(deps, mixedJobs(`${tag}-mixed`, SAMPLE), concurrency);
    out.mixed.msPerJob = takeProfile(SAMPLE);
  }
  if (!parts.includes("list")) return out;
  out.list = await listFirstPage(stores);
  out.list.msPerCall = takeProfile(Number(opt["list-reps"]));
  return out;
}

/** How the simulated console waits after a poll that took `took` ms (web/src/api/polling.ts's rule for "backoff"). */
const POLL_MS = 3_000;
const pollWait = (policy, took) => (policy.startsWith("backoff") ? Math.max(POLL_MS, 5 * took) : POLL_MS - (took % POLL_MS));

/**
 * An open alerts page of the console (--console-poll), as its two polled queries reach the store:
 * the list (the Open tab's first page, newest first: a list of triggered and one of acknowledged
 * alerts) and the tab counts (four one-item pages), each a few store calls at once, with the
 * gateway's deadline from the poll's start (none for an `-unbounded` policy). Each query polls on
 * its own, never twice at a time. Answers `stop()`, which resolves to the polls made, those that
 * failed (past their deadline), and the page's share of the time with a query in flight.
 */
function pollLikeConsole(stores, policy) {
  let stopped = false;
  let wake = () => {};
  const deadlineMs = policy.endsWith("-unbounded") ? 0 : Number(opt["console-deadline-ms"]);
  const page = (status, limit, deadline) =>
    stores.alerts.list(1, { status, orderBy: "started_at", sort: "desc", offset: 0, limit }, deadline);
  const queries = [
    // The Open tab's first page: one list per status, merged (listOfStatuses).
    (deadline) => Promise.all(["triggered", "acknowledged"].map((status) => page(status, 20, deadline))),
    (deadline) => Promise.all(["triggered", "acknowledged", "resolved", undefined].map((status) => page(status, 1, deadline))),
  ];
  let polls = 0;
  let failed = 0;
  let busyMs = 0;
  const t0 = performance.now();
  const loop = async (query) => {
    while (!stopped) {
      const started = performance.now();
      try {
        await query(deadlineMs > 0 ? Date.now() + deadlineMs : undefined);
      } catch (err) {
        if (err?.code !== "DEADLINE_EXCEEDED") throw err;
        failed++;
      }
      const took = performance.now() - started;
      polls++;
      busyMs += took;
      if (stopped) break;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, pollWait(policy, took));
        const previous = wake;
        wake = () => {
          clearTimeout(timer);
          previous();
          resolve();
        };
      });
    }
  };
  const loops = Promise.all(queries.map(loop));
  return {
    stop: async () => {
      stopped = true;
      wake();
      await loops;
      return { polls, failed, inFlight: busyMs / queries.length / (performance.now() - t0) };
    },
  };
}

/**
 * Repeats of `BATCH × concurrency` open alerts for `seconds` (an event each, so that the store
 * keeps its size and every window lists the same alerts), in rounds: jobs/s.
 */
async function repeatsFor(deps, tag, seconds, concurrency) {
  const size = BATCH * concurrency;
  await run(deps, newJobs(tag, size), concurrency);
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  let n = 0;
  while (performance.now() < end) {
    // New job ids, the same fingerprints: each job is an event on an open alert.
    await run(deps, newJobs(tag, size), concurrency);
    n += size;
  }
  return n / ((performance.now() - t0) / 1000);
}

/** --console-poll: processing alone, beside a page polling at a fixed 3 s, and beside one backing off, `--console-seconds` each. */
async function consolePolling(deps, stores, concurrency) {
  const out = {};
  for (const policy of ["none", ...opt["console-policies"].split(","), "none2"]) {
    const poller = policy.startsWith("none") ? undefined : pollLikeConsole(stores, policy);
    const rate = await repeatsFor(deps, `console-${policy}`, Number(opt["console-seconds"]), concurrency);
    out[policy] = { rate, ...(await poller?.stop()) };
    log(`console polling ${policy}: ${rate.toFixed(1)} jobs/s`, JSON.stringify(out[policy]));
  }
  const alone = (out.none.rate + out.none2.rate) / 2;
  out.ratios = {};
  for (const [policy, r] of Object.entries(out)) if (!policy.startsWith("none") && r.rate) out.ratios[policy] = r.rate / alone;
  return out;
}

async function openMode(mode) {
  if (mode === "embedded") {
    const dir = mkdtempSync(join(tmpdir(), "tocsin-growth-"));
    const file = join(dir, "alert.db");
    const db = openSqlite(file, { checkpoints: opt.wal });
    // As the processing thread does (thread/worker.ts): alert.db's checkpoints in a thread of their own.
    const checkpointer = opt.wal === "elsewhere" ? startCheckpointThread([file], createLogger("growth", "info")) : undefined;
    // An experiment: SQLite's page cache for this connection (default 2 MB).
    if (opt["cache-mib"]) db.pragma(`cache_size = -${Number(opt["cache-mib"]) * 1024}`);
    return {
      stores: createSqliteAlertsStores(db),
      concurrency: 1,
      target: Number(opt.embedded),
      close: async () => {
        await checkpointer?.stop();
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const pg = !opt["mongo-url"] && opt.ferret === "postgresql" ? freshPostgres(opt["postgres-url"], "tocsin_growth") : undefined;
  // FerretDB/SQLite's database files, kept across the restart after --id-indexes.
  const files = !opt["mongo-url"] && opt.ferret === "sqlite" ? mkdtempSync(join(tmpdir(), "tocsin-growth-ferretdb-")) : undefined;
  const connect = async () => {
    const ferret = opt["mongo-url"]
      ? { url: opt["mongo-url"], stop: async () => {} }
      : await startFerretDb({ handler: opt.ferret, postgresUrl: pg?.url, sqliteDir: files });
    const client = await new MongoClient(ferret.url, { monitorCommands: opt.profile }).connect();
    const started = new Map();
    client.on("commandStarted", (e) => started.set(e.requestId, `${e.commandName} ${e.command[e.commandName]}`));
    client.on("commandSucceeded", (e) => {
      const key = started.get(e.requestId);
      started.delete(e.requestId);
      if (key) profile.set(key, (profile.get(key) ?? 0) + e.duration);
    });
    const stores = await createMongoAlertsStores(client.db(DB_NAME));
    const close = async () => {
      await client.close();
      await ferret.stop();
    };
    return { stores, close };
  };
  let conn = await connect();
  return {
    stores: conn.stores,
    concurrency: Number(opt.concurrency),
    target: Number(opt.mongo),
    // With --id-indexes, once the warm-up has created every collection of the hot path: the
    // script, then FerretDB restarted on the same database (as the script's header asks).
    afterWarmUp: async () => {
      if (!opt["id-indexes"]) return undefined;
      if (pg) pg.idIndexes(DB_NAME);
      else
        execFileSync(process.execPath, [
          join(ROOT, "scripts", "ferretdb-sqlite-id-indexes.mjs"),
          join(files, `${DB_NAME}.sqlite`),
        ]);
      await conn.close();
      conn = await connect();
      return conn.stores;
    },
    close: async () => {
      await conn.close();
      pg?.drop();
      if (files) rmSync(files, { recursive: true, force: true });
    },
  };
}

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
    const polling = opt["console-poll"] ? await consolePolling(deps, m.stores, m.concurrency) : undefined;
    return { mode, target: m.target, start, end, refStart, refEnd, grow, checkpoints, polling };
  } finally {
    await m.close();
  }
}

/** Three significant digits (thousands grouped). */
const fmt = (x) => (x === undefined ? "—" : x >= 100 ? Math.round(x).toLocaleString("en-US") : String(Number(x.toPrecision(3))));

function report(results) {
  const lines = [];
  lines.push(`| mode (size start → end) | figure | start | end | end ÷ start |`, `|---|---|---|---|---|`);
  for (const r of results) {
    if (r.only) continue; // logged as it is
    const name = `${r.mode} (${fmt(r.start.list.total)} → ${fmt(r.end.list.total)})`;
    const rel = (e, s) => (e / s).toFixed(2);
    for (const c of r.checkpoints) {
      const at = `${r.mode} (${fmt(r.start.list.total)} → ${fmt(c.list.total)}, checkpoint)`;
      lines.push(
        `| ${at} | intake, new alerts/s | ${fmt(r.start.intake.rate)} | ${fmt(c.intake.rate)} | **${rel(c.intake.rate, r.start.intake.rate)}** |`,
      );
      lines.push(
        `| ${at} | mixed, jobs/s | ${fmt(r.start.mixed.rate)} | ${fmt(c.mixed.rate)} | **${rel(c.mixed.rate, r.start.mixed.rate)}** |`,
      );
      lines.push(
        `| ${at} | list first page, ms | ${fmt(r.start.list.ms)} | ${fmt(c.list.ms)} | **${rel(r.start.list.ms, c.list.ms)}** (start ÷ end) |`,
      );
      lines.push(
        `| ${at} | node:http single posts/s | ${fmt(r.refStart.baseline)} | ${fmt(c.ref.baseline)} | ${rel(c.ref.baseline, r.refStart.baseline)} |`,
      );
    }
    const row = (what, s, e) => lines.push(`| ${name} | ${what} | ${fmt(s)} | ${fmt(e)} | **${rel(e, s)}** |`);
    row("intake, new alerts/s", r.start.intake.rate, r.end.intake.rate);
    // Item 5's sustained figure: the growth's first step and its last (each thousands of alerts, not a 1,000-job sample).
    const [first, last] = [r.grow[0], r.grow.at(-1)];
    if (first && last && r.grow.length > 1) {
      lines.push(
        `| ${name} | growth, new alerts/s (${fmt(first.from)} → ${fmt(first.size)}; ${fmt(last.from)} → ${fmt(last.size)}) | ${fmt(first.rate)} | ${fmt(last.rate)} | **${rel(last.rate, first.rate)}** |`,
      );
    }
    row("intake ÷ node:http same time", r.start.intake.rate / r.refStart.baseline, r.end.intake.rate / r.refEnd.baseline);
    row("mixed (½ repeats + resolves), jobs/s", r.start.mixed.rate, r.end.mixed.rate);
    row("CPU ms per job (this process), intake", r.start.intake.cpuMsPerJob, r.end.intake.cpuMsPerJob);
    row("CPU ms per job (this process), mixed", r.start.mixed.cpuMsPerJob, r.end.mixed.cpuMsPerJob);
    lines.push(
      `| ${name} | list first page, ms (median) | ${fmt(r.start.list.ms)} | ${fmt(r.end.list.ms)} | **${rel(r.start.list.ms, r.end.list.ms)}** (start ÷ end) |`,
    );
    row("node:http single posts/s", r.refStart.baseline, r.refEnd.baseline);
    if (r.refStart.alertmanager) row("Alertmanager single posts/s", r.refStart.alertmanager, r.refEnd.alertmanager);
    lines.push(`| ${name} | load average (1 min) | ${fmt(r.refStart.load1)} | ${fmt(r.refEnd.load1)} | |`);
    const p = r.polling;
    if (p) {
      const pct = (x) => `${(100 * x).toFixed(0)} %`;
      for (const [policy, ratio] of Object.entries(p.ratios)) {
        const q = p[policy];
        const how = policy.startsWith("backoff") ? "backing off (5 × the last answer)" : "polling at a fixed 3 s";
        const bound = policy.endsWith("-unbounded") ? "no deadline" : `deadline ${opt["console-deadline-ms"]} ms`;
        lines.push(
          `| ${name} | repeats at the end beside an open alerts page ${how}, ${bound}, ÷ alone | | ${fmt(q.rate)} jobs/s (in flight ${pct(q.inFlight)}; ${q.failed} of ${q.polls} polls failed) | **${fmt(ratio)}** |`,
        );
      }
      lines.push(`| ${name} | repeats alone, before and after | | ${fmt(p.none.rate)} / ${fmt(p.none2.rate)} jobs/s | |`);
    }
  }
  return lines.join("\n");
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
console.log(report(results));
const file = opt.json ?? join(ROOT, "bench", "results", `growth-${new Date().toISOString().slice(0, 16)}.json`);
mkdirSync(join(file, ".."), { recursive: true });
writeFileSync(file, JSON.stringify({ options: opt, results }, null, 2));
log("results in", file);
