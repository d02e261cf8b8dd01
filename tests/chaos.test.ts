import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { forbiddenAnswers, startLoad, tally } from "./chaos-load.js";
import {
  type ChaosProject,
  type ChaosSystem,
  checkNothingLostOrDoubled,
  killHard,
  type OwnRedis,
  seedChaosProject,
  startChaosSystem,
  startDurableRedis,
} from "./chaos-system.js";
import { built } from "./start-process.js";

// Faults as a monitor lives through them (issue 27), on the system `npm start` runs: every answer
// during a fault is 202, 503 with Retry-After, or a connection error; nothing that got a 202 is
// lost; nothing is counted twice when the client repeats its Idempotency-Key; a crashed process
// is back at once. Each monitor posts its alert until it gets a 202, with one key per alert.

const ALERTS = 400;
const CONCURRENCY = 16;

function expectFaultRules(load: ReturnType<typeof startLoad>, result: Awaited<ReturnType<typeof checkNothingLostOrDoubled>>) {
  const forbidden = forbiddenAnswers(load.answers);
  expect(forbidden.slice(0, 5), `answers: ${JSON.stringify(tally(load.answers))}`).toEqual([]);
  expect(load.accepted.size).toBe(ALERTS);
  expect(result.lost, "accepted but lost").toEqual([]);
  expect(result.doubled, "counted twice").toEqual([]);
  expect(result.duplicates, "stored twice").toBe(0);
}

/** Starts the load and resolves once `after` alerts were accepted (the moment of the fault). */
async function loadUntil(system: ChaosSystem, project: ChaosProject, run: string, after: number, concurrency = CONCURRENCY) {
  const load = startLoad({ url: () => system.url, path: project.path, key: project.key, alerts: ALERTS, concurrency, run });
  while (load.accepted.size < after) await new Promise((r) => setTimeout(r, 5));
  return load;
}

async function crashAlertService(system: ChaosSystem, project: ChaosProject, run: string, concurrency: number) {
  const load = await loadUntil(system, project, run, 100, concurrency);
  const restartsBefore = (system.started.output().match(/alert exited unexpectedly/g) ?? []).length;
  await killHard(system.pid("alert"));
  await load.done;
  const readyMs = await system.ready();
  const result = await checkNothingLostOrDoubled(system.url, project, run, load.accepted);
  console.log(`[chaos] ${run}: ${JSON.stringify(tally(load.answers))}; ready again ${readyMs} ms after the load ended`);
  expectFaultRules(load, result);
  // The supervisor restarted it at once (0.2 s), or, for a second crash within 10 s of the
  // first, after 1 s: back within a few seconds, never after a long backoff. Its own line says so.
  const restarts = [...system.started.output().matchAll(/alert exited unexpectedly \(code \d+\); restarting it in ([\d.]+) s/g)];
  expect(restarts.length).toBe(restartsBefore + 1);
  expect(Number(restarts.at(-1)?.[1])).toBeLessThanOrEqual(restartsBefore === 0 ? 0.2 : 1);
}

async function stopSystemUnderLoad(system: ChaosSystem, project: ChaosProject, run: string) {
  const load = await loadUntil(system, project, run, 100);
  const stopped = system.started.exit;
  system.started.child.kill("SIGTERM");
  expect(await stopped).toBe(0);
  // Monitors keep retrying (connection errors) until the system is back.
  await system.restart();
  await load.done;
  const result = await checkNothingLostOrDoubled(system.url, project, run, load.accepted);
  console.log(`[chaos] ${run}: ${JSON.stringify(tally(load.answers))}`);
  expectFaultRules(load, result);
}

describe.skipIf(!built).each([
  { queue: "local", redis: false },
  { queue: "bullmq", redis: true },
])("faults under load, $queue queue", ({ queue, redis: withRedis }) => {
  let redis: OwnRedis | undefined;
  let system: ChaosSystem;
  let project: ChaosProject;

  beforeAll(async () => {
    if (withRedis) {
      if (!inject("redisUrl")) throw new Error("no redis-server: the BullMQ chaos suite needs one");
      redis = await startDurableRedis();
    }
    system = await startChaosSystem(redis ? { REDIS_URL: redis.url } : {});
    project = await seedChaosProject(system.url, `chaos-${queue}`);
  }, 120_000);

  afterAll(async () => {
    if (process.env.CHAOS_DEBUG) console.log(system?.started.output());
    await system?.stop();
    await redis?.stop();
  });

  it(
    "SIGKILL of alert-service while monitors post",
    () => crashAlertService(system, project, `${queue}-kill`, CONCURRENCY),
    180_000,
  );

  it(
    "SIGKILL of alert-service with a backlog of queued jobs",
    () => crashAlertService(system, project, `${queue}-backlog`, 64),
    180_000,
  );

  it.runIf(withRedis)(
    "SIGKILL of Redis, restarted while monitors post",
    async () => {
      const run = `${queue}-redis`;
      const load = await loadUntil(system, project, run, 100);
      await redis?.kill();
      // Monitors see refusals while Redis is away; restart it once they have.
      const refusedBefore = load.answers.filter((a) => a.status !== 202).length;
      while (load.answers.filter((a) => a.status !== 202).length < refusedBefore + 5 && load.accepted.size < ALERTS)
        await new Promise((r) => setTimeout(r, 20));
      await redis?.start();
      await load.done;
      await system.ready();
      const result = await checkNothingLostOrDoubled(system.url, project, run, load.accepted);
      console.log(`[chaos] ${run}: ${JSON.stringify(tally(load.answers))}`);
      expectFaultRules(load, result);
    },
    180_000,
  );

  it(
    "SIGTERM of the whole system while monitors post, then started again",
    () => stopSystemUnderLoad(system, project, `${queue}-sigterm`),
    180_000,
  );
});
