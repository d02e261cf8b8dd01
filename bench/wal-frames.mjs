#!/usr/bin/env node
// Which B-trees a new alert writes, in WAL pages (issue 25): the real stores and processing
// use-case (`processAlertJobs`) on a temporary `alert.db` opened as alert-service opens it, with
// automatic checkpoints off while the measured alerts are processed, so that the WAL holds every
// page each commit wrote. The frames' page numbers are then mapped to their table or index through
// SQLite's `dbstat`, and printed per alert, beside the CPU and wall µs per alert of that pass.
//
//   npm run build && node bench/wal-frames.mjs [--warm 20000] [--alerts 10000] [--batch 32] [--sequential]
// (--warm: open alerts made first, the fingerprint index's size; --batch: jobs per transaction, as
// a lane batch; --sequential: fingerprints that sort in arrival order, to price the random ones.)
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { uuidV7 } from "@tocsin/core";
import { openProcessing, stormJob } from "./storm-job.mjs";

const { values: opt } = parseArgs({
  options: {
    warm: { type: "string", default: "20000" },
    alerts: { type: "string", default: "10000" },
    batch: { type: "string", default: "32" },
    sequential: { type: "boolean", default: false },
  },
});
const BATCH = Number(opt.batch);
const N = Number(opt.alerts);

const dir = mkdtempSync(join(tmpdir(), "tocsin-wal-frames-"));
const file = join(dir, "alert.db");
const { db, deps, processAlertJobs } = await openProcessing(fileURLToPath(new URL("..", import.meta.url)), file);

/** The `i`-th new alert of a pass (bench/storm-job.mjs); `--sequential`: fingerprints in arrival order. */
const jobOf = (tag, i) => stormJob(tag, i, uuidV7(), opt.sequential ? `${tag}-${String(i).padStart(10, "0")}` : undefined);

async function pass(tag, n) {
  const jobs = Array.from({ length: n }, (_, i) => jobOf(tag, i));
  for (let i = 0; i < jobs.length; i += BATCH) {
    const { error } = await processAlertJobs(deps, jobs.slice(i, i + BATCH));
    if (error) throw error;
  }
}

await pass("warm", Number(opt.warm));
db.pragma("wal_checkpoint(TRUNCATE)");
db.pragma("wal_autocheckpoint = 0");
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await pass("new", N);
const cpu = process.cpuUsage(cpu0);
const wallMs = performance.now() - t0;

// WAL layout: a 32-byte header (page size at offset 8), then frames of a 24-byte header (page number first) and the page.
const wal = readFileSync(`${file}-wal`);
const pageSize = wal.readUInt32BE(8);
const framesOf = new Map();
let frames = 0;
for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
  const page = wal.readUInt32BE(at);
  framesOf.set(page, (framesOf.get(page) ?? 0) + 1);
  frames++;
}
db.pragma("wal_checkpoint(TRUNCATE)");
const byTree = new Map();
for (const { name, pageno } of db.prepare("SELECT name, pageno FROM dbstat").iterate()) {
  const n = framesOf.get(pageno);
  if (n) byTree.set(name, (byTree.get(name) ?? 0) + n);
}
db.close();
rmSync(dir, { recursive: true, force: true });

console.log(
  `${N} new alerts after ${opt.warm}, ${BATCH} per transaction${opt.sequential ? ", sequential fingerprints" : ""}: ` +
    `${(frames / N).toFixed(2)} WAL pages per alert, CPU ${((cpu.user + cpu.system) / N).toFixed(1)} µs, wall ${((wallMs * 1000) / N).toFixed(1)} µs per alert`,
);
for (const [name, n] of [...byTree].sort((a, b) => b[1] - a[1])) console.log(`  ${name.padEnd(36)} ${(n / N).toFixed(3)}`);
