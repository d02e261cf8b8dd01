#!/usr/bin/env node
// CPU per processed alert on the embedded store (issue 9): the real SQLite stores and the real
// processing use-case (`processAlertJobs`), no queue, no gRPC, no HTTP. A temporary DATA_DIR gets
// `alert.db` opened the way alert-service opens it (`openSqlite`: WAL, synchronous NORMAL), then:
//   new     N distinct alerts (one fingerprint each), in batches of --batch jobs per call, as the
//           queue's lane workers hand them over (one transaction per batch);
//   repeat  the same N fingerprints again (events + 1 on the open alerts);
//   rerun   the jobs of `new` run again (a re-run after a crash: must change nothing);
// and prints, per phase, µs of CPU per alert (process.cpuUsage, user + system, this process),
// wall µs per alert, and SQLite statements per alert (counted in a separate short pass, so the
// counting does not weigh on the CPU figure), plus the bytes of alert.db per alert.
//
// One-command reproduction (build first: the script imports alert-service/dist):
//   npm run build && node bench/sqlite-processing.mjs [--alerts 20000] [--batch 64] [--rounds 3] [--ids v7|v4] [--silences 0]
// (--ids: the job ids, which are request ids: v7 = time-ordered UUIDs as the gateway makes them,
// v4 = random ones, as a caller's own X-Request-Id may be: every index keyed by them then takes a
// random page per alert. --silences N: N active silences in the project behind the silence gate of
// Reactions, issue 24 — the mix of bench/silences-index.mjs plus one that holds 1 alert in 100.)
// Before/after in one run (alternating rounds, medians), against a copy of an older build:
//   node bench/sqlite-processing.mjs --against <dir holding alert-service/dist of the old build>
//   (e.g. `git worktree add /tmp/old <commit> && cd /tmp/old && ln -s <repo>/node_modules . &&
//   npx tsc -b alert-service`, then `--against /tmp/old`).
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { median } from "./lib/stats.mjs";
import { openProcessing, stormJob } from "./storm-job.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: opt } = parseArgs({
  options: {
    alerts: { type: "string", default: "20000" },
    batch: { type: "string", default: "64" },
    rounds: { type: "string", default: "3" },
    root: { type: "string", default: ROOT },
    against: { type: "string" },
    ids: { type: "string", default: "v7" },
    json: { type: "boolean", default: false },
    silences: { type: "string", default: "0" },
  },
});
const N = Number(opt.alerts);
const BATCH = Number(opt.batch);
if (!["v4", "v7"].includes(opt.ids)) throw new Error("--ids: v4 or v7");

async function load(root) {
  const dist = (p) => pathToFileURL(join(root, "alert-service/dist", p)).href;
  const { uuidV7 } = await import("@tocsin/core");
  newId = opt.ids === "v7" ? uuidV7 : randomUUID;
  const gateFile = join(root, "alert-service/dist/domain/silences/gate.js");
  const silences =
    Number(opt.silences) > 0 && existsSync(gateFile)
      ? {
          ...(await import(pathToFileURL(gateFile).href)),
          ...(await import(dist("domain/silences/active-index.js"))),
          ...(await import(dist("store/silences/sqlite-silence-store.js"))),
        }
      : undefined;
  return silences;
}

/** `n` active silences of project 1 (see the header), behind a gate, or undefined for none. */
async function silenceGate(lib, db, stores, n) {
  if (!lib) return undefined;
  const store = lib.createSqliteSilenceStore(db);
  const now = Date.now();
  const eq = (name, value) => ({ name, value, isRegex: false, isEqual: true });
  const re = (name, value) => ({ name, value, isRegex: true, isEqual: true });
  for (let i = 0; i < n; i++) {
    const kind = i % 5;
    const matchers =
      i === 0
        ? [eq("service", "web"), re("title", "storm new-\\d*00")]
        : kind === 0
          ? [eq("alertname", `Alert${i}`), eq("env", "prod")]
          : kind === 1
            ? [eq("host", `web-${i}`)]
            : kind === 2
              ? [eq("service", `svc-${i}`), re("severity", "critical|high")]
              : kind === 3
                ? [eq("title", `Alert${i}`), re("instance", `db-${i}:.*`)]
                : [re("title", `Maint${i}.*`)];
    await store.insert({
      id: `s${String(i).padStart(5, "0")}`,
      projectId: 1,
      matchers,
      startsAt: new Date(now - 60_000),
      endsAt: new Date(now + 3600_000),
      createdBy: "bench",
      comment: "",
      updatedAt: new Date(now),
    });
  }
  const clock = { now: () => new Date() };
  return lib.createSilenceGate({
    index: lib.createSilenceIndexCache({ clock, maxAgeMs: 1000, load: (p, at) => store.list(p, { endsAfter: at }) }),
    alertOf: (id) => stores.alerts.getById(id),
    mark: (alertId, ids, at) => store.markSilenced(alertId, ids, at),
    schedule: async () => {},
  });
}

/** Job ids are request ids: time-ordered UUIDs from the gateway (v7), or a caller's random ones (v4). */
let newId = randomUUID;

/** The `i`-th distinct alert of a storm (bench/storm-job.mjs), its job id from `newId`. */
const jobOf = (tag, i) => stormJob(tag, i, newId());

/** Statements run through better-sqlite3 (run/get/all/iterate, transactions' BEGIN/COMMIT included). */
function countStatements(db) {
  const proto = Object.getPrototypeOf(db.prepare("SELECT 1"));
  const counter = { n: 0 };
  for (const m of ["run", "get", "all", "iterate"]) {
    const orig = proto[m];
    proto[m] = function (...args) {
      counter.n++;
      return orig.apply(this, args);
    };
  }
  return counter;
}

async function runPhase(processAlertJobs, deps, jobs) {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < jobs.length; i += BATCH) {
    const { outcomes, error } = await processAlertJobs(deps, jobs.slice(i, i + BATCH));
    if (error || outcomes.length !== Math.min(BATCH, jobs.length - i)) throw error ?? new Error("short batch");
  }
  const cpu = process.cpuUsage(cpu0);
  const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
  return { cpuUs: (cpu.user + cpu.system) / jobs.length, wallUs: wallUs / jobs.length };
}

/** One round in this process: returns `{ phase: { cpuUs, wallUs, statements } , bytesPerAlert }`. */
async function round(root) {
  const silences = await load(root);
  const dir = mkdtempSync(join(tmpdir(), "tocsin-sqlite-bench-"));
  try {
    const { db, deps, processAlertJobs } = await openProcessing(root, join(dir, "alert.db"), {
      gateOf: (db, stores) => silenceGate(silences, db, stores, Number(opt.silences)),
    });
    // Warm-up (JIT, statement caches, first pages), thrown away.
    await runPhase(
      processAlertJobs,
      deps,
      Array.from({ length: 2000 }, (_, i) => jobOf("warm", i)),
    );
    const fresh = Array.from({ length: N }, (_, i) => jobOf("new", i));
    const again = fresh.map((j) => {
      const id = newId();
      return { ...j, jobId: id, requestId: id };
    });
    db.pragma("wal_checkpoint(TRUNCATE)");
    const size0 = statSync(join(dir, "alert.db")).size;
    const result = {};
    result.new = await runPhase(processAlertJobs, deps, fresh);
    db.pragma("wal_checkpoint(TRUNCATE)");
    result.bytesPerAlert = (statSync(join(dir, "alert.db")).size - size0) / N;
    result.repeat = await runPhase(processAlertJobs, deps, again);
    const before = db.prepare("SELECT COUNT(*) AS n, SUM(events) AS e FROM alerts").get();
    result.rerun = await runPhase(processAlertJobs, deps, fresh);
    const after = db.prepare("SELECT COUNT(*) AS n, SUM(events) AS e FROM alerts").get();
    if (before.n !== after.n || before.e !== after.e) throw new Error("a re-run changed the alerts");
    if (after.n !== N + 2000) throw new Error(`expected ${N + 2000} alerts, found ${after.n}`);
    // Statements per alert, in a short pass of its own.
    const counter = countStatements(db);
    const M = Math.min(N, 1024);
    const counted = Array.from({ length: M }, (_, i) => jobOf("count", i));
    for (const [phase, jobs] of [
      ["new", counted],
      ["repeat", counted.map((j) => ({ ...j, jobId: newId() }))],
      ["rerun", counted],
    ]) {
      counter.n = 0;
      await runPhase(processAlertJobs, deps, jobs);
      result[phase].statements = counter.n / M;
    }
    db.close();
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PHASES = ["new", "repeat", "rerun"];

function summarise(results) {
  const out = { bytesPerAlert: median(results.map((r) => r.bytesPerAlert)) };
  for (const p of PHASES)
    out[p] = {
      cpuUs: median(results.map((r) => r[p].cpuUs)),
      wallUs: median(results.map((r) => r[p].wallUs)),
      statements: results[0][p].statements,
    };
  return out;
}

/** One round of `root` in a fresh process (no JIT or cache state shared between builds). */
function childRound(root) {
  const args = [
    fileURLToPath(import.meta.url),
    "--json",
    "--rounds",
    "1",
    "--alerts",
    String(N),
    "--batch",
    String(BATCH),
    "--ids",
    opt.ids,
    "--silences",
    opt.silences,
  ];
  const out = execFileSync(process.execPath, [...args, "--root", root], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop());
}

const fmt = (x, d = 1) => x.toFixed(d).padStart(8);
function print(label, s) {
  console.log(
    `${label}  (${N} alerts, batches of ${BATCH}, ${opt.ids} job ids, ${opt.silences} silences; alert.db ${fmt(s.bytesPerAlert, 0)} bytes/alert)`,
  );
  console.log("  phase    µs CPU/alert  µs wall/alert  statements/alert");
  for (const p of PHASES)
    console.log(`  ${p.padEnd(7)}  ${fmt(s[p].cpuUs)}      ${fmt(s[p].wallUs)}       ${fmt(s[p].statements)}`);
}

const rounds = Number(opt.rounds);
if (opt.json) {
  const results = [];
  for (let r = 0; r < rounds; r++) results.push(await round(opt.root));
  console.log(JSON.stringify(summarise(results)));
} else {
  const builds = opt.against
    ? [
        ["before", resolve(opt.against)],
        ["after", opt.root],
      ]
    : [["this build", opt.root]];
  const results = new Map(builds.map(([label]) => [label, []]));
  for (let r = 0; r < rounds; r++)
    for (const [label, root] of builds) {
      process.stdout.write(`round ${r + 1}/${rounds} ${label}…\n`);
      results.get(label)?.push(childRound(root));
    }
  console.log(
    `node ${process.version}, ${new Date().toISOString()}, load ${(await import("node:os"))
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  const summaries = builds.map(([label]) => [label, summarise(results.get(label) ?? [])]);
  for (const [label, s] of summaries) print(label, s);
  if (summaries.length === 2) {
    const [[, b], [, a]] = summaries;
    console.log(
      `after/before, CPU per alert: new ${(a.new.cpuUs / b.new.cpuUs).toFixed(2)}, repeat ${(a.repeat.cpuUs / b.repeat.cpuUs).toFixed(2)}, rerun ${(a.rerun.cpuUs / b.rerun.cpuUs).toFixed(2)}`,
    );
    // Paired by round (each after-round ran right after its before-round): steadier than the
    // ratio of medians when the machine's speed drifts during the run.
    const before = results.get("before") ?? [];
    const after = results.get("after") ?? [];
    const paired = (p) => {
      const ratios = after.map((r, i) => r[p].cpuUs / before[i][p].cpuUs);
      return `${median(ratios).toFixed(2)} [${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}]`;
    };
    console.log(`after/before paired by round, median [min–max]: ${PHASES.map((p) => `${p} ${paired(p)}`).join(", ")}`);
  }
}
