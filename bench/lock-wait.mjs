#!/usr/bin/env node
// What the processing thread's batch size costs the main thread's writes to alert.db (issue 25):
// a Worker runs the real processing use-case (`processAlertJobs`, distinct new alerts) on a
// temporary alert.db in batches of --batch, back to back, as the processing thread does in a
// storm; meanwhile the main thread, on its own connection, reserves an Idempotency-Key (the
// accept path's one write to alert.db, `SqliteRequestLog.reserve`) every 5 ms and times it. The
// reserve waits in SQLite's busy handler, which sleeps on the main thread's event loop, so its
// time is also how long intake stood still. Prints, per batch size, the alerts processed and the
// reserve's p50/p90/p99/max.
//
// Usage: npm run build && node bench/lock-wait.mjs [--batch 32,64,128,256] [--seconds 8]
// See bench/README.md, "Lock waits of the main thread".
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { uuidV7 } from "@tocsin/core";
import { openSqlite } from "@tocsin/store";
import { stormJob } from "./storm-job.mjs";

const { createSqliteAlertsStores } = await import("../alert-service/dist/store/alerts/sqlite-stores.js");
const { processAlertJobs } = await import("../alert-service/dist/domain/alerts/processing.js");
const { createReactions } = await import("../alert-service/dist/domain/alerts/reactions.js");

/** The Worker: batches of new alerts until told to stop; answers with how many it processed. */
async function processUntilStopped({ file, batch }) {
  const stores = createSqliteAlertsStores(openSqlite(file));
  const deps = {
    stores,
    jobs: { enqueueIncident: async () => {}, enqueueFollowUps: async () => {} },
    clock: { now: () => new Date() },
    reactions: createReactions([]),
  };
  let stop = false;
  parentPort.on("message", () => {
    stop = true;
  });
  parentPort.postMessage("ready");
  let i = 0;
  while (!stop) {
    const jobs = Array.from({ length: batch }, () => stormJob("lock-wait", i++, uuidV7()));
    const { error } = await processAlertJobs(deps, jobs);
    if (error) throw error;
    await new Promise((r) => setImmediate(r));
  }
  parentPort.postMessage(i);
}

/** One batch size: the Worker processing, the main thread reserving keys for `seconds`. */
async function measure(batch, seconds) {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-lock-wait-"));
  const file = join(dir, "alert.db");
  const db = openSqlite(file);
  const stores = createSqliteAlertsStores(db);
  const worker = new Worker(new URL(import.meta.url), { workerData: { file, batch } });
  try {
    await new Promise((r) => worker.once("message", r));
    const waits = [];
    const end = Date.now() + seconds * 1000;
    for (let n = 0; Date.now() < end; n++) {
      const t = performance.now();
      const now = new Date();
      await stores.requests.reserve(
        1,
        `key-${n}`,
        { requestId: `r${n}`, fingerprints: [] },
        new Date(now.getTime() + 60_000),
        now,
      );
      waits.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 5));
    }
    worker.postMessage("stop");
    const processed = await new Promise((r) => worker.once("message", r));
    waits.sort((a, b) => a - b);
    const at = (q) => waits[Math.min(waits.length - 1, Math.floor(waits.length * q))].toFixed(2);
    return { batch, processed, n: waits.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: waits.at(-1).toFixed(1) };
  } finally {
    await worker.terminate();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMainThread) {
  const { values: opt } = parseArgs({
    options: { batch: { type: "string", default: "32,64,128,256" }, seconds: { type: "string", default: "8" } },
  });
  const seconds = Number(opt.seconds);
  console.log(`=== lock waits, ${new Date().toISOString()}, node ${process.version}, ${seconds} s per batch size`);
  console.log("batch  alerts processed  reserves  p50 ms  p90 ms  p99 ms  max ms");
  for (const batch of opt.batch.split(",").map(Number)) {
    const r = await measure(batch, seconds);
    console.log(
      `${String(r.batch).padStart(5)}  ${String(r.processed).padStart(16)}  ${String(r.n).padStart(8)}  ${r.p50.padStart(6)}  ${r.p90.padStart(6)}  ${r.p99.padStart(6)}  ${r.max.padStart(6)}`,
    );
  }
} else {
  await processUntilStopped(workerData);
}
