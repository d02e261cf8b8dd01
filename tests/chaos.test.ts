import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { forbiddenAnswers, forbiddenReads, startLoad, startReaders, tally } from "./chaos-load.js";
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

function expectFaultRules(
  load: ReturnType<typeof startLoad>,
  result: Awaited<ReturnType<typeof checkNothingLostOrDoubled>>,
  total = ALERTS,
) {
  const forbidden = forbiddenAnswers(load.answers);
  expect(forbidden.slice(0, 5), `answers: ${JSON.stringify(tally(load.answers))}`).toEqual([]);
  expect(load.accepted.size).toBe(total);
  expect(result.lost, "accepted but lost").toEqual([]);
  expect(result.doubled, "counted twice").toEqual([]);
  expect(result.duplicates, "stored twice").toBe(0);
}

/** Starts the load and resolves once `after` alerts were accepted (the moment of the fault). */
async function loadUntil(system: ChaosSystem, project: ChaosProject, run: string, after: number) {
  const load = startLoad({
    url: () => system.url,
    path: project.path,
    key: project.key,
    alerts: ALERTS,
    concurrency: CONCURRENCY,
    run,
  });
  await until(() => load.accepted.size >= after, 300_000, 5);
  return load;
}

/** Alerts each finished run left in its system's project (a run checks only its own). */
const finishedRuns = new Map<string, number>();
const storedBefore = (run: string) =>
  [...finishedRuns].filter(([r]) => r !== run && r.split("-")[0] === run.split("-")[0]).reduce((n, [, c]) => n + c, 0);

/** Accepted alerts of `run` that are not listed yet: how far processing is behind accepting. */
/**
 * Accepted alerts not yet stored. `accepted` is read once the count has come back: read before
 * the request, alerts accepted and stored while it ran (a list under load can take a second)
 * counted as stored but not as accepted, and a real backlog read as none (CI, 2026-11-28).
 */
async function backlogOf(system: ChaosSystem, project: ChaosProject, run: string, accepted: () => number) {
  const res = await api(system.url, project.token).get(
    `/api/v4/projects/${project.projectId}/alert_management/alerts?per_page=1`,
  );
  return accepted() - (Number(res.headers.get("x-total")) - storedBefore(run));
}

const BATCH = 100;
const BATCH_ALERTS = 5_000;

/**
 * SIGKILL of alert-service while monitors post. `backlog`: Alertmanager batches of 100 to the
 * Prometheus endpoint, all posted at once, which are accepted faster than they are processed; the
 * kill waits until at least 100 accepted alerts are not processed yet.
 */
async function crashAlertService(system: ChaosSystem, project: ChaosProject, run: string, backlog: boolean) {
  const total = backlog ? BATCH_ALERTS : ALERTS;
  const load = backlog
    ? startLoad({
        url: () => system.url,
        path: project.prometheus.path,
        key: project.prometheus.key,
        alerts: total,
        batch: BATCH,
        // Every post in flight at once: the whole load is accepted within a few posts' time, which
        // processing cannot match (8 at a time let processing, once faster, keep up: no backlog).
        concurrency: BATCH_ALERTS / BATCH,
        run,
      })
    : startLoad({ url: () => system.url, path: project.path, key: project.key, alerts: total, concurrency: CONCURRENCY, run });
  // The kill follows the measurement that found the backlog at once (a second read would let
  // processing, now fast in both queues, catch up in between).
  let behind = 0;
  if (backlog)
    await until(
      async () => {
        behind = await backlogOf(system, project, run, () => load.accepted.size);
        return behind >= 100 || load.accepted.size === total;
      },
      60_000,
      20,
    ).catch((err: Error) => {
      load.stop();
      throw new Error(`${err.message}: ${JSON.stringify(tally(load.answers))} ${JSON.stringify(load.answers.at(-1))}`);
    });
  else {
    await until(() => load.accepted.size >= 100, 300_000, 5);
    behind = await backlogOf(system, project, run, () => load.accepted.size);
  }
  const restartsBefore = (system.started.output().match(/alert exited unexpectedly/g) ?? []).length;
  const killedAt = Date.now();
  await killHard(system.pid("alert"));
  // Back means: restarted by the supervisor and the gateway ready (every dependency SERVING).
  await until(() => system.started.output().split(/alert exited unexpectedly/).length - 1 > restartsBefore, 30_000);
  await until(
    () =>
      /alert restarted/.test(
        system.started
          .output()
          .split(/alert exited unexpectedly/)
          .at(-1) ?? "",
      ),
    30_000,
  );
  await system.ready();
  const backMs = Date.now() - killedAt;
  await load.done;
  const result = await checkNothingLostOrDoubled(system.url, project, run, load.accepted);
  console.log(
    `[chaos] ${run}: ${JSON.stringify(tally(load.answers))}; ${behind} accepted alerts not yet processed at the kill; ready again ${backMs} ms after it`,
  );
  finishedRuns.set(run, total);
  expectFaultRules(load, result, total);
  if (backlog) expect(behind, "a backlog at the kill").toBeGreaterThanOrEqual(100);
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
  finishedRuns.set(run, ALERTS);
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

  it("SIGKILL of alert-service while monitors post", () => crashAlertService(system, project, `${queue}-kill`, false), 180_000);

  it(
    "SIGKILL of alert-service with a backlog of queued jobs",
    () => crashAlertService(system, project, `${queue}-backlog`, true),
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
      await until(
        () => load.answers.filter((a) => a.status !== 202).length >= refusedBefore + 5 || load.accepted.size >= ALERTS,
        300_000,
        20,
      );
      await redis?.start();
      await load.done;
      await system.ready();
      const result = await checkNothingLostOrDoubled(system.url, project, run, load.accepted);
      console.log(`[chaos] ${run}: ${JSON.stringify(tally(load.answers))}`);
      finishedRuns.set(run, ALERTS);
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

describe.skipIf(!built)("faults of the other services, and of the supervisor", () => {
  let system: ChaosSystem;
  let project: ChaosProject;

  beforeAll(async () => {
    system = await startChaosSystem();
    project = await seedChaosProject(system.url, "chaos-rest");
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  // Every gRPC hop the gateway makes: auth-service (the caller's token), settings-service
  // (notification settings), alert-service (alerts, integrations) — while one of them is killed.
  it.each(["auth", "settings", "alert"] as const)(
    "REST calls during a SIGKILL of %s-service answer 200 or 503 with Retry-After, never 500",
    async (name) => {
      const p = `/api/v4/projects/${project.projectId}`;
      const readers = startReaders(() => system.url, project.token, [
        "/api/v4/user",
        "/api/v4/notification_settings",
        `${p}/notification_settings`,
        `${p}/alert_management/alerts`,
        `${p}/alert_management/integrations`,
      ]);
      await until(() => readers.answers.length >= 20, 300_000, 5);
      await killHard(system.pid(name));
      // Read on until the process is back and answering.
      const seen = readers.answers.length;
      await system.ready();
      await until(() => readers.answers.slice(seen).filter((a) => a.status === 200).length >= 20, 300_000, 5);
      await readers.stop();
      console.log(`[chaos] REST during ${name} SIGKILL: ${JSON.stringify(tally(readers.answers))}`);
      expect(forbiddenReads(readers.answers).slice(0, 5), JSON.stringify(tally(readers.answers))).toEqual([]);
    },
    120_000,
  );

  it("npm start killed with SIGKILL: the processes it started end too, and a new start gets the ports", async () => {
    const pids = (["auth", "settings", "alert", "gateway"] as const).map((n) => system.pid(n));
    const exited = system.started.exit;
    system.started.child.kill("SIGKILL");
    await exited;
    await until(() => pids.every((pid) => !alive(pid)), 20_000);
    await system.restart();
    expect((await fetch(`${system.url}/-/health`)).status).toBe(200);
  }, 120_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
