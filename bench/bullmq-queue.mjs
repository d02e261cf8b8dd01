#!/usr/bin/env node
// The BullMQ queue alone (issue 25): `BullmqJobQueue` from alert-service/dist on a private
// `redis-server --appendonly yes --appendfsync always` (every write on disk before it answers, as
// storm.mjs runs it), no processing, gRPC or HTTP. Per round: --jobs jobs (~300-byte data) added
// over the 8 ordered lanes in addBulk calls of 100 while no worker runs, then a batch worker
// (maxJobs --batch, doing nothing) started, until `counts().pending` is 0: jobs run and ended per
// second, and the mean jobs per batch the worker was handed (1 when the backend hands one job at
// a time). The adds are priced too: their rate and the CPU per job of this process (the producer)
// and of Redis, as an accepting thread pays them for 100-alert posts one at a time. Rounds
// alternate between builds with --against.
//
// One-command reproduction (build first: the script imports alert-service/dist):
//   npm run build && node bench/bullmq-queue.mjs [--jobs 4000] [--batch 64] [--rounds 3]
// Before/after in one run: --against <a checkout whose alert-service/dist is the older build>.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startDurableRedis } from "./lib/redis.mjs";
import { median } from "./lib/stats.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: opt } = parseArgs({
  options: {
    jobs: { type: "string", default: "4000" },
    batch: { type: "string", default: "64" },
    rounds: { type: "string", default: "3" },
    against: { type: "string" },
  },
});
const JOBS = Number(opt.jobs);
const logger = { error() {}, warn() {}, info() {}, debug() {}, child: () => logger };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function once(root, redis, round) {
  const redisUrl = redis.url;
  const { BullmqJobQueue } = await import(pathToFileURL(join(root, "alert-service/dist/queue/bullmq-queue.js")).href);
  const prefix = `bench-${round}-${Date.now()}`;
  const queue = new BullmqJobQueue({ redisUrl, logger, prefix });
  const jobs = Array.from({ length: JOBS }, (_, i) => ({
    id: `job-${i}`,
    name: "process-alert",
    lane: i % 8,
    data: { i, requestId: "0190f5c2-0000-7000-8000-000000000000", pad: "x".repeat(260) },
  }));
  const cpu = process.cpuUsage();
  const redisCpu = redis.cpuSeconds();
  const addStarted = Date.now();
  for (let i = 0; i < JOBS; i += 100) await queue.addBulk(jobs.slice(i, i + 100));
  const addMs = Date.now() - addStarted;
  const { user, system } = process.cpuUsage(cpu);
  const adds = {
    perSecond: Math.round((JOBS / addMs) * 1000),
    producerUs: +((user + system) / JOBS).toFixed(1),
    redisUs: +(((redis.cpuSeconds() - redisCpu) * 1e6) / JOBS).toFixed(1),
  };
  let ran = 0;
  let batches = 0;
  const started = Date.now();
  await queue.start({
    maxJobs: Number(opt.batch),
    batch: async (run) => {
      batches++;
      ran += run.length;
      return run.map(() => ({ ok: true, result: null }));
    },
  });
  while ((await queue.counts()).pending > 0) await sleep(10);
  const ms = Date.now() - started;
  await queue.close();
  return { perSecond: Math.round((ran / ms) * 1000), perBatch: +(ran / batches).toFixed(1), adds };
}

const builds = [{ name: "this build", root: ROOT }, ...(opt.against ? [{ name: "against", root: resolve(opt.against) }] : [])];
const redis = await startDurableRedis("bullmq-bench");
const results = Object.fromEntries(builds.map((b) => [b.name, []]));
try {
  for (let round = 1; round <= Number(opt.rounds); round++)
    for (const b of builds) {
      const r = await once(b.root, redis, `${round}-${b.name.replace(" ", "")}`);
      results[b.name].push(r);
      console.log(
        `round ${round} ${b.name}: ${r.perSecond} jobs/s run and ended, ${r.perBatch} jobs per batch; ` +
          `adds ${r.adds.perSecond} jobs/s, CPU µs per job: producer ${r.adds.producerUs}, Redis ${r.adds.redisUs}`,
      );
    }
} finally {
  redis.stop();
}
for (const b of builds) {
  const rs = results[b.name];
  console.log(
    `${b.name}: median ${median(rs.map((r) => r.perSecond))} jobs/s (${JOBS} jobs, 8 lanes, AOF always); adds: median ` +
      `${median(rs.map((r) => r.adds.perSecond))} jobs/s, CPU µs per job: producer ${median(rs.map((r) => r.adds.producerUs))}, ` +
      `Redis ${median(rs.map((r) => r.adds.redisUs))}`,
  );
}
process.exit(0);
