#!/usr/bin/env node
// Instructions per new alert of processing on SQLite (issue 25), counted by valgrind's callgrind:
// a figure that does not move with the machine's load or speed, unlike the CPU time the other
// benches read (a storm's rounds spread by ±12–30 %, so a change worth 2 % never shows there).
//
// Each count is one process under `valgrind --tool=callgrind`: it builds the same --alerts + --base
// storm jobs (bench/storm-job.mjs; the jobs' building is counted, the same in every run), opens a
// temporary `alert.db` as alert-service does, and runs `processAlertJobs` over the first N of them
// in transactions of --batch (as a lane batch does). N = --base and N = --base + --alerts; the
// difference divided by --alerts is the instructions one new alert costs processing (JIT, start-up
// and the jobs' building cancel out). --runs pairs, median.
//
//   npm run build && node bench/processing-instructions.mjs [--alerts 16000] [--base 4000]
//     [--batch 256] [--runs 1] [--against <root of another checkout, built>] [--top 30]
//     [--drop-indexes a,b] [--channels]
// --against: the same for that build, in the same run, and the ratio (this ÷ that).
// --drop-indexes: those indexes of alert.db dropped before the alerts are processed: what each
// B-tree costs a new alert (a measurement, not a setup: the alert list needs them).
// --channels: with the channels reactor over the build's destination store (no destinations, as a
// storm's project): what alert-service's processing pays for it. Without it, no reactor.
// --top N: the N functions whose count grew most per alert (callgrind_annotate, self counts).
// Each counted node runs with `--predictable` (V8 without its concurrent compiler and GC threads).
// Needs valgrind (on every machine here). About a minute per pair of processes (valgrind runs node
// ≈ 60× slower; the two of a pair run at once).
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { median } from "./lib/stats.mjs";

const { values: opt } = parseArgs({
  options: {
    alerts: { type: "string", default: "16000" },
    base: { type: "string", default: "4000" },
    batch: { type: "string", default: "256" },
    runs: { type: "string", default: "1" },
    against: { type: "string" },
    top: { type: "string", default: "0" },
    child: { type: "string" },
    root: { type: "string" },
    total: { type: "string" },
    "drop-indexes": { type: "string", default: "" },
    channels: { type: "boolean", default: false },
  },
});

if (opt.child) {
  const drops = opt["drop-indexes"].split(",").filter(Boolean);
  await child(Number(opt.child), Number(opt.total), Number(opt.batch), opt.root, { drops, channels: opt.channels });
  process.exit(0);
}

const ALERTS = Number(opt.alerts);
const BASE = Number(opt.base);
const here = resolve(fileURLToPath(new URL("..", import.meta.url)));
const roots = [{ name: "this", root: here }, ...(opt.against ? [{ name: "against", root: resolve(opt.against) }] : [])];
const work = mkdtempSync(join(tmpdir(), "tocsin-instructions-"));

/** Instructions of one process that runs `n` of the jobs with `root`'s build; the callgrind file kept for --top. */
function count(root, n, tag) {
  const out = join(work, `cg.${tag}`);
  const args = [
    "--tool=callgrind",
    `--callgrind-out-file=${out}`,
    process.execPath,
    // V8 without its concurrent compiler and GC threads: without it, whether a compile or a
    // marking ran in the counted window moved a run by ±8 % of the alert's instructions.
    "--predictable",
    fileURLToPath(import.meta.url),
    "--child",
    String(n),
    "--total",
    String(BASE + ALERTS),
    "--batch",
    opt.batch,
    "--root",
    root,
    "--drop-indexes",
    opt["drop-indexes"],
    ...(opt.channels ? ["--channels"] : []),
  ];
  return new Promise((res, rej) => {
    const p = spawn("valgrind", args, { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    p.stderr.on("data", (d) => {
      err += d;
    });
    p.on("close", (code) => {
      const m = /Collected : (\d+)/.exec(err);
      if (code !== 0 || !m) rej(new Error(`valgrind ${tag}: exit ${code}\n${err.slice(-2000)}`));
      else res({ ir: Number(m[1]), file: out });
    });
  });
}

try {
  const results = new Map(roots.map((r) => [r.name, []]));
  const files = new Map();
  for (let run = 0; run < Number(opt.runs); run++) {
    for (const r of roots) {
      const [small, large] = await Promise.all([
        count(r.root, BASE, `${r.name}.${run}.s`),
        count(r.root, BASE + ALERTS, `${r.name}.${run}.l`),
      ]);
      const perAlert = (large.ir - small.ir) / ALERTS;
      results.get(r.name).push(perAlert);
      files.set(r.name, [small.file, large.file]);
      console.log(
        `run ${run + 1} ${r.name} (${r.root}): ${Math.round(perAlert).toLocaleString("en")} instructions per new alert`,
      );
    }
  }
  const med = new Map([...results].map(([k, v]) => [k, median(v)]));
  console.log(
    `processing, ${ALERTS} new alerts after ${BASE}, ${opt.batch} per transaction${opt.channels ? ", with the channels reactor" : ""}, median of ${opt.runs}: ` +
      roots.map((r) => `${r.name} ${Math.round(med.get(r.name)).toLocaleString("en")}`).join(", ") +
      (opt.against ? `; this ÷ against ${(med.get("this") / med.get("against")).toFixed(3)}` : "") +
      ` instructions per alert (node ${process.version})`,
  );
  if (Number(opt.top) > 0) for (const r of roots) await top(r.name, ...files.get(r.name));
} finally {
  // The callgrind files, also when valgrind failed.
  rmSync(work, { recursive: true, force: true });
}

/** The functions whose self count grew most between the two processes, per alert. */
async function top(name, small, large) {
  const read = (file) =>
    new Promise((res, rej) =>
      execFile("callgrind_annotate", ["--inclusive=no", "--threshold=100", file], { maxBuffer: 1 << 28 }, (err, out) =>
        err ? rej(err) : res(out),
      ),
    );
  const parse = (text) => {
    const m = new Map();
    for (const line of text.split("\n")) {
      const hit = /^\s*([\d,]+) \([ \d.]+%\)\s+(.*)$/.exec(line);
      if (!hit || line.includes("PROGRAM TOTALS")) continue;
      const fn = hit[2]
        .replace(/\s*\[.*\]$/, "")
        .replace(/\(.*$/, "")
        .slice(0, 100);
      m.set(fn, (m.get(fn) ?? 0) + Number(hit[1].replaceAll(",", "")));
    }
    return m;
  };
  const [a, b] = [parse(await read(small)), parse(await read(large))];
  const diff = [...new Set([...a.keys(), ...b.keys()])].map((k) => [k, ((b.get(k) ?? 0) - (a.get(k) ?? 0)) / ALERTS]);
  console.log(`\n${name}: self instructions per alert, largest ${opt.top}`);
  for (const [fn, n] of diff.sort((x, y) => y[1] - x[1]).slice(0, Number(opt.top)))
    console.log(`${Math.round(n).toLocaleString("en").padStart(9)}  ${fn}`);
}

/** One counted process: `total` jobs built, the first `n` processed (`drops`: indexes dropped first; `channels`: its reactor). */
async function child(n, total, batch, root, { drops, channels }) {
  const { uuidV7 } = await import(pathToFileURL(join(root, "libs/core/dist/index.js")).href);
  const { stormJob, openProcessing } = await import(new URL("./storm-job.mjs", import.meta.url).href);
  const jobs = Array.from({ length: total }, (_, i) => stormJob("new", i, uuidV7()));
  const dir = mkdtempSync(join(tmpdir(), "tocsin-instructions-db-"));
  try {
    const { db, deps, processAlertJobs } = await openProcessing(root, join(dir, "alert.db"), { channels });
    for (const index of drops) db.exec(`DROP INDEX ${index}`);
    for (let i = 0; i < n; i += batch) {
      const { error } = await processAlertJobs(deps, jobs.slice(i, Math.min(n, i + batch)));
      if (error) throw error;
    }
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
