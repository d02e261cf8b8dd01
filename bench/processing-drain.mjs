#!/usr/bin/env node
// How fast the processing side of the embedded mode empties a full queue (issue 25 item 2): what
// the processing thread does in a batch storm, alone on the machine. No HTTP, no gRPC, no
// accepting thread competing for the cores, so a change of a few per cent shows (a storm run
// varies by ±12 %). Per round, a temporary DATA_DIR:
//   fill   --jobs distinct alerts of Alertmanager webhooks of --post alerts each (the storm's
//          batch round's bodies, bench/storm/wrk-post.lua), normalized by the product's own
//          `normalizeAlertmanager` and added through `createAlertJobs(…).enqueueAlerts` on the
//          durable SQLite queue, as the accepting thread adds them (one pack per lane and post);
//   drain  the real composition of processing (`createProcessing`: the lane worker and its
//          job-data checks, processing, the Reactions dispatcher with the silences gate, the
//          queue's reads and job ends), on `alert.db` and `alert-queue.db` opened as the
//          processing thread opens them (their checkpoints in a checkpoint thread), merged lanes,
//          batches of --batch jobs, until every job has ended;
// and prints the drain's jobs/s (wall), µs of CPU per job (process.cpuUsage: every thread of the
// process), how busy the draining thread was (its own CPU over the drain's wall time: the rest it
// waited, for a lock, a sync or a wake) and the jobs per batch, median of --rounds after one
// round thrown away (JIT, caches).
// --accept-rate R: the posts are instead added while the drain runs, by a second thread (as the
// accepting thread adds them: its own connection to the queue file, synchronous FULL, WAL
// checkpoints left to the draining connection, each commit waking the lanes) at R alerts/s, for
// --jobs / R seconds; the drain's rate is then the jobs ended while the adds went on over their
// time (what processing keeps up with beside an accepting thread), and CPU per job is the
// process's (both threads).
// --queue redis: the lanes are BullMQ's instead, on a private `redis-server --appendonly yes
// --appendfsync always` (as bench/storm.mjs runs it), a fresh key prefix per round, the drain with
// BullMQ's turns (worker.ts); it adds Redis's CPU per job (/proc/<pid>/stat) to the line.
// Not in it: the e-mail, channel and paging reactors (their claims need settings- and
// auth-service; in a storm they find no recipient, channel or policy) and the main thread's
// answers to ended jobs.
//
// One-command reproduction (build first: the script imports alert-service/dist):
//   npm run build && node bench/processing-drain.mjs [--jobs 40000] [--post 100] [--batch 256] [--rounds 3] [--accept-rate 0] [--queue local]
// Before/after: run it on each build alternately (the figures of one run are comparable only
// to those of runs beside it on the same machine).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { createLogger, systemClock, uuidV7 } from "@tocsin/core";
import { openSqlite } from "@tocsin/store";
import { alertJobId } from "../alert-service/dist/domain/alerts/ports.js";
import { normalizeAlertmanager } from "../alert-service/dist/domain/alerts/prometheus.js";
import { createProcessing, openAlertQueues } from "../alert-service/dist/processing-runtime.js";
import { createAlertJobs } from "../alert-service/dist/queue/alert-jobs.js";
import { BULLMQ_TURNS } from "../alert-service/dist/queue/lane-worker.js";
import { createSqliteAlertsStores } from "../alert-service/dist/store/alerts/sqlite-stores.js";
import { createSqliteSilenceStore } from "../alert-service/dist/store/silences/sqlite-silence-store.js";
import { startCheckpointThread } from "../alert-service/dist/thread/checkpoint-thread.js";
import { startDurableRedis } from "./lib/redis.mjs";
import { median } from "./lib/stats.mjs";

const { values: opt } = parseArgs({
  options: {
    jobs: { type: "string", default: "40000" },
    post: { type: "string", default: "100" },
    batch: { type: "string", default: "256" },
    rounds: { type: "string", default: "3" },
    "accept-rate": { type: "string", default: "0" },
    queue: { type: "string", default: "local" },
  },
});
const ACCEPT_RATE = Number(opt["accept-rate"]);
if (opt.queue !== "local" && opt.queue !== "redis") throw new Error("--queue: local or redis");
if (!(Number(opt.rounds) >= 1)) throw new Error("--rounds: at least 1");
const JOBS = Number(opt.jobs);
const POST = Number(opt.post);
const logger = createLogger("bench", "warn");

/** One post of the storm's batch round: an Alertmanager webhook (version 4) of alerts `from`…`to - 1`. */
function webhook(tag, from, to) {
  const startsAt = new Date().toISOString();
  const alerts = [];
  for (let n = from; n < to; n++)
    alerts.push({
      status: "firing",
      labels: { alertname: `Storm${tag}-${n}`, instance: "web-1:9100", severity: "critical" },
      annotations: { summary: "CPU above 90% on the web tier" },
      startsAt,
      endsAt: "0001-01-01T00:00:00Z",
      generatorURL: "http://prometheus.local/graph",
      fingerprint: `${tag}x${n}`,
    });
  return {
    version: "4",
    groupKey: "{}:{}",
    truncatedAlerts: 0,
    status: "firing",
    receiver: "tocsin",
    groupLabels: {},
    commonLabels: { severity: "critical" },
    commonAnnotations: {},
    externalURL: "http://alertmanager.local",
    alerts,
  };
}

/** The process-alert jobs of one post, as the ingest use-case makes them (`enqueueAll`: job ids `<request id>#<index>`). */
function jobsOf(tag, from, to) {
  const requestId = uuidV7();
  const opts = { tier: "premium", mapping: null, integrationName: "storm", receivedAt: new Date() };
  const log = { ingestRequestId: requestId };
  return normalizeAlertmanager(webhook(tag, from, to), opts).map((alert, index) => ({
    jobId: alertJobId(requestId, index),
    requestId,
    projectId: 1,
    integrationId: 7,
    alert,
    log,
  }));
}

async function fill(dataDir, tag, bullmq) {
  const { queue, timers } = openAlertQueues({ dataDir, logger, ...bullmq });
  const jobs = createAlertJobs(queue, timers);
  for (let i = 0; i < JOBS; i += POST) await jobs.enqueueAlerts(jobsOf(tag, i, Math.min(i + POST, JOBS)));
  await queue.close();
  await timers.close();
}

/**
 * The accepting thread's part (`--accept-rate`): adds the posts at `rate` alerts/s on its own
 * connection, tells the drain of each commit's lanes (`commit`) and, at the end, of how long the
 * adds took (`added`).
 */
async function produce({ dataDir, tag, rate, bullmq }) {
  const { queue, timers } = openAlertQueues({
    dataDir,
    logger,
    ...bullmq,
    checkpoints: "never",
    onCommit: (lanes) => parentPort.postMessage({ type: "commit", lanes }),
  });
  const jobs = createAlertJobs(queue, timers);
  const t0 = performance.now();
  for (let i = 0; i < JOBS; i += POST) {
    const due = t0 + (i / rate) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await jobs.enqueueAlerts(jobsOf(tag, i, Math.min(i + POST, JOBS)));
  }
  parentPort.postMessage({ type: "added", ms: performance.now() - t0 });
  await queue.close();
  await timers.close();
}

/** CPU ms of the calling thread so far (Linux: /proc/thread-self/stat, user + system, in ticks of 10 ms). */
function threadCpuMs() {
  const fields = readFileSync("/proc/thread-self/stat", "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU ms of process `pid` so far (/proc/<pid>/stat, user + system, in ticks of 10 ms). */
function processCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function drain(dataDir, tag, redis) {
  // As alert-service/src/thread/worker.ts opens them: without REDIS_URL both files' checkpoints
  // in the checkpoint thread, the writers' own only at the backstop; with it, alert.db's.
  const alertDb = join(dataDir, "alert.db");
  const queueDb = redis ? undefined : join(dataDir, "alert-queue.db");
  const sqlite = openSqlite(alertDb, { checkpoints: "elsewhere" });
  const checkpoints = startCheckpointThread(queueDb ? [alertDb, queueDb] : [alertDb], logger);
  let ended = 0;
  let batches = 0;
  let done;
  const finished = new Promise((resolve) => {
    done = resolve;
  });
  const { lanes, queue, timers } = openAlertQueues({
    dataDir,
    logger,
    mergeLanes: true,
    ...(redis ? redis.bullmq : { checkpoints: "elsewhere" }),
    onEnded: (jobs) => {
      batches++;
      ended += jobs.length;
      if (ended >= JOBS) done();
    },
  });
  let accepting;
  if (ACCEPT_RATE > 0) {
    const producer = new Worker(new URL(import.meta.url), {
      workerData: { dataDir, tag, rate: ACCEPT_RATE, bullmq: redis?.bullmq },
      argv: process.argv.slice(2),
    });
    accepting = new Promise((resolve, reject) => {
      producer.on("message", (m) => {
        if (m.type === "commit" && !redis) lanes.wake(m.lanes);
        else if (m.type === "added") resolve({ ms: m.ms, ended });
      });
      producer.on("error", reject);
    });
  }
  const processing = createProcessing({
    stores: createSqliteAlertsStores(sqlite),
    queue,
    timers,
    clock: systemClock,
    logger,
    turns: redis ? BULLMQ_TURNS : 1,
    batchJobs: Number(opt.batch),
    silences: createSqliteSilenceStore(sqlite),
  });
  const redis0 = redis ? processCpuMs(redis.pid) : 0;
  const busy0 = threadCpuMs();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await processing.start();
  await finished;
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const busyPct = (100 * (threadCpuMs() - busy0)) / wallMs;
  const redisUsPerJob = redis ? ((processCpuMs(redis.pid) - redis0) * 1000) / JOBS : undefined;
  const during = await accepting;
  processing.stop();
  await queue.close();
  await timers.close();
  await checkpoints.stop();
  const alerts = sqlite.prepare("SELECT COUNT(*) AS n FROM alerts").get().n;
  sqlite.close();
  if (alerts !== JOBS) throw new Error(`drained ${ended} jobs but alert.db holds ${alerts} alerts, not ${JOBS}`);
  const jobsPerS = during ? (during.ended / during.ms) * 1000 : (JOBS / wallMs) * 1000;
  return {
    jobsPerS: Math.round(jobsPerS),
    cpuUsPerJob: (cpu.user + cpu.system) / JOBS,
    busyPct,
    jobsPerBatch: JOBS / batches,
    redisUsPerJob,
  };
}

if (!isMainThread) {
  await produce(workerData);
  process.exit(0);
}

const server = opt.queue === "redis" ? await startDurableRedis("drain") : undefined;
const results = [];
try {
  for (let r = -1; r < Number(opt.rounds); r++) {
    const dataDir = mkdtempSync(join(tmpdir(), "tocsin-drain-"));
    // A fresh key prefix per round: each drain starts from empty lanes.
    const redis = server && { pid: server.pid, bullmq: { redisUrl: server.url, queuePrefix: `drain${r + 1}` } };
    try {
      if (ACCEPT_RATE === 0) await fill(dataDir, `r${r}`, redis?.bullmq);
      const res = await drain(dataDir, `r${r}`, redis);
      if (r >= 0) results.push(res);
      const label = r < 0 ? "warm-up (not counted)" : `round ${r + 1}`;
      const redisCpu = redis ? ` (Redis ${res.redisUsPerJob.toFixed(1)})` : "";
      console.log(
        `${label}: ${res.jobsPerS} jobs/s, ${res.cpuUsPerJob.toFixed(1)} µs CPU per job${redisCpu}, ` +
          `the draining thread busy ${res.busyPct.toFixed(0)} % of the time, ${res.jobsPerBatch.toFixed(0)} jobs per batch`,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  server?.stop();
}
const accepting = ACCEPT_RATE > 0 ? `, added at ${ACCEPT_RATE}/s meanwhile` : "";
const redisCpu = server ? ` (Redis ${median(results.map((x) => x.redisUsPerJob)).toFixed(1)})` : "";
console.log(
  `drain of ${JOBS} new alerts (${opt.queue} lanes, posts of ${POST}${accepting}, batches of ${opt.batch}), median of ${results.length}: ` +
    `${median(results.map((x) => x.jobsPerS))} jobs/s, ${median(results.map((x) => x.cpuUsPerJob)).toFixed(1)} µs CPU per job${redisCpu}, ` +
    `the draining thread busy ${median(results.map((x) => x.busyPct)).toFixed(0)} % ` +
    `(node ${process.version})`,
);
