#!/usr/bin/env node
// CPU per job of the embedded durable queue alone (issue 9): `SqliteJobQueue` from
// alert-service/dist on a file in a temporary folder (WAL, synchronous FULL for the adds, as
// alert-service opens `alert-queue.db`), no processing, no gRPC, no HTTP. Two phases:
//   add   N jobs over 8 lanes, --group adds per event-loop turn (one group commit each);
//   run   a batch worker taking up to 32 jobs of a lane at a time and doing nothing, until every
//         job has ended (its end recorded in the queue, as the lanes do);
//   accept  --producers concurrent producers adding one job at a time for --seconds s (as the
//           webhook's posts arrive), counting adds/s and the event loop's delay p99/max
//           (monitorEventLoopDelay): how long a post that arrives meanwhile would wait;
// and prints µs of CPU per job (process.cpuUsage, user + system) for add and run, median of --rounds.
// A slower disk (fsync of a cloud volume: milliseconds) can be imitated with strace, which delays
// every fdatasync/fsync of the process:
//   strace -f --seccomp-bpf -qq -o /dev/null -e trace=fdatasync,fsync \
//     -e inject=fdatasync:delay_exit=3000 -e inject=fsync:delay_exit=3000 node bench/sqlite-queue.mjs ...
//
// One-command reproduction (build first: the script imports alert-service/dist):
//   npm run build && node bench/sqlite-queue.mjs [--jobs 40000] [--group 50] [--rounds 3]
// Before/after in one run (alternating rounds): --against <a checkout whose alert-service/dist
// is the older build>.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { median } from "./lib/stats.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: opt } = parseArgs({
  options: {
    jobs: { type: "string", default: "40000" },
    group: { type: "string", default: "50" },
    rounds: { type: "string", default: "3" },
    producers: { type: "string", default: "50" },
    seconds: { type: "string", default: "3" },
    against: { type: "string" },
    // Pads each job's payload to about this many bytes of JSON (the storm's jobs are ≈ 900).
    bytes: { type: "string", default: "0" },
  },
});
const JOBS = Number(opt.jobs);
const GROUP = Number(opt.group);
const logger = { error() {}, warn() {}, info() {}, debug() {}, child: () => logger };
// The shape of an ingest job's data (alert-service/src/queue/job-facts.ts), ~300 bytes as JSON.
const data = {
  projectId: 1,
  integrationId: 2,
  payloadJson: JSON.stringify({
    title: "disk full on db-7",
    severity: "high",
    monitoring_tool: "bench",
    host: "db-7",
    description: "x".repeat(Math.max(0, Number(opt.bytes) - 300)),
  }),
  receivedAt: new Date().toISOString(),
  requestId: "0190f5c2-0000-7000-8000-000000000000",
};

const cpuUs = (since) => {
  const { user, system } = process.cpuUsage(since);
  return user + system;
};

/** The queue class of the build at `root`: `SqliteJobQueue`, or `LocalJobQueue` of a build before issue 21. */
async function queueClass(root) {
  const path = join(root, "alert-service/dist/queue/sqlite/sqlite-job-queue.js");
  if (existsSync(path)) return (await import(pathToFileURL(path).href)).SqliteJobQueue;
  return (await import(pathToFileURL(join(root, "alert-service/dist/queue/local-queue.js")).href)).LocalJobQueue;
}

async function once(root, round) {
  const SqliteJobQueue = await queueClass(root);
  const dir = mkdtempSync(join(tmpdir(), "tocsin-queue-bench-"));
  const queue = new SqliteJobQueue({ file: join(dir, "alert-queue.db"), logger });
  let start = process.cpuUsage();
  for (let i = 0; i < JOBS; i += GROUP) {
    const adds = [];
    for (let j = i; j < Math.min(JOBS, i + GROUP); j++)
      adds.push(queue.add({ id: `r${round}-${String(j).padStart(8, "0")}-0000-7000-8000`, name: "ingest", lane: j % 8, data }));
    await Promise.all(adds);
  }
  const add = cpuUs(start) / JOBS;
  let ended = 0;
  let allEnded;
  const done = new Promise((r) => (allEnded = r));
  start = process.cpuUsage();
  await queue.start({
    maxJobs: 32,
    batch: async (jobs) => {
      ended += jobs.length;
      if (ended >= JOBS) setImmediate(allEnded);
      return jobs.map(() => ({ ok: true, result: null }));
    },
  });
  await done;
  // The last batch's end is recorded right after the worker answers: one more turn.
  await new Promise((r) => setImmediate(r));
  const run = cpuUs(start) / JOBS;
  await queue.close();
  const accept = await acceptPhase(SqliteJobQueue, join(dir, "accept.db"), round);
  rmSync(dir, { recursive: true, force: true });
  return { add, run, ...accept };
}

/** Concurrent producers, one add at a time each, no worker: adds/s and the event loop's delay. */
async function acceptPhase(SqliteJobQueue, file, round) {
  const queue = new SqliteJobQueue({ file, logger });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let added = 0;
  const until = Date.now() + Number(opt.seconds) * 1000;
  delay.enable();
  const producer = async (p) => {
    for (let n = 0; Date.now() < until; n++) {
      await queue.add({ id: `a${round}-${p}-${n}`, name: "ingest", lane: (p + n) % 8, data });
      added++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: Number(opt.producers) }, (_, p) => producer(p)));
  const seconds = (Date.now() - started) / 1000;
  delay.disable();
  await queue.close();
  return { addsPerSecond: added / seconds, delayP99: delay.percentile(99) / 1e6, delayMax: delay.max / 1e6 };
}

const builds = opt.against
  ? [
      ["before", resolve(opt.against)],
      ["after", ROOT],
    ]
  : [["this build", ROOT]];
const results = Object.fromEntries(builds.map(([name]) => [name, []]));
for (let round = 0; round < Number(opt.rounds); round++)
  for (const [name, root] of builds) results[name].push(await once(root, `${round}${name.length}`));

console.log(
  `SQLite queue: ${JOBS} jobs of ≈ ${JSON.stringify(data).length} bytes, ${GROUP} adds per group commit, median of ${opt.rounds} rounds (µs of CPU per job)`,
);
for (const [name, root] of builds) {
  const rs = results[name];
  const add = median(rs.map((r) => r.add));
  const run = median(rs.map((r) => r.run));
  const rate = median(rs.map((r) => r.addsPerSecond));
  const p99 = median(rs.map((r) => r.delayP99));
  const max = median(rs.map((r) => r.delayMax));
  console.log(
    `  ${name.padEnd(10)} add ${add.toFixed(1)}  run+end ${run.toFixed(1)}  total ${(add + run).toFixed(1)} µs/job;` +
      `  ${opt.producers} producers: ${Math.round(rate)} adds/s, loop delay p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms   (${root})`,
  );
}
