import { type CallContext, silentLogger } from "@tocsin/core";
import { FakeClock } from "@tocsin/testing";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { createAlertJobs } from "../../queue/alert-jobs.js";
import type { JobQueue } from "../../queue/queue.js";
import { SqliteJobQueue } from "../../queue/sqlite/sqlite-job-queue.js";
import { createSqliteAlertsStores } from "../../store/alerts/sqlite-stores.js";
import { ingest, waitAll } from "./ingest.js";

/**
 * Issue 27: an attempt that failed after the queue may have stored its jobs (Redis killed after
 * its AOF write and before its answer) must not make the client's retry with the same
 * Idempotency-Key a second alert event. Issue 21: the tier the gateway's endpoint look-up
 * answered saves the project look-up.
 */
describe("ingest", () => {
  const closers: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  function setup() {
    const db = new Database(":memory:");
    const queue = new SqliteJobQueue({ file: ":memory:", logger: silentLogger() });
    const timers = new SqliteJobQueue({ file: ":memory:", logger: silentLogger(), lanes: 1, ordered: false });
    closers.push(
      () => queue.close(),
      () => timers.close(),
      () => {
        db.close();
      },
    );
    let storeThenFail = 0;
    const projectLookups: number[] = [];
    // The queue stores the jobs, then its answer is lost: the caller sees UNAVAILABLE.
    const flaky = new Proxy(queue, {
      get(target, prop) {
        if (prop === "addBulk")
          return async (jobs: Parameters<JobQueue["addBulk"]>[0]) => {
            await target.addBulk(jobs);
            if (storeThenFail-- > 0) throw new Error("connection lost after the write");
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const deps = {
      stores: createSqliteAlertsStores(db),
      jobs: createAlertJobs(flaky, timers),
      clock: new FakeClock(new Date("2026-11-25T10:00:00.000Z")),
      projects: {
        require: async () => ({ id: 7, fullPath: "ops/web", tier: "premium" as const, accessLevel: 50 }),
        byId: async (projectId: number) => {
          projectLookups.push(projectId);
          return { id: 7, fullPath: "ops/web", tier: "premium" as const, accessLevel: 50 };
        },
      },
      integrations: {
        get: async () => ({
          id: 3,
          projectId: 7,
          name: "Main",
          type: "http" as const,
          active: true,
          mapping: null,
          rateLimitPerMinute: 0,
          autoResolveMinutes: null,
        }),
        opsgenieUrl: async () => undefined,
      },
    };
    const failNextAfterStoring = () => {
      storeThenFail = 1;
    };
    return { deps, queue, failNextAfterStoring, projectLookups };
  }

  const request = {
    projectId: 7,
    integrationId: 3,
    payloadJson: '{"title":"Disk full","fingerprint":"disk"}',
    idempotencyKey: "k1",
  };
  const ctx = (requestId: string): CallContext => ({ requestId });

  it("a retry after a failed attempt whose jobs were stored replays the first request: one job, not two", async () => {
    const { deps, queue, failNextAfterStoring } = setup();
    failNextAfterStoring();
    await expect(ingest(deps, request, ctx("first"))).rejects.toMatchObject({ code: "UNAVAILABLE" });
    const retry = await ingest(deps, request, ctx("second"));
    expect(retry.replayed).toBe(true);
    expect(retry.requestId).toBe("first");
    expect((await queue.counts()).pending).toBe(1);
  });

  it("a repeat of an accepted request replays it and queues nothing new", async () => {
    const { deps, queue } = setup();
    const first = await ingest(deps, request, ctx("first"));
    expect(first.replayed).toBe(false);
    const again = await ingest(deps, request, ctx("again"));
    expect(again).toMatchObject({ replayed: true, requestId: "first" });
    expect((await queue.counts()).pending).toBe(1);
  });

  it("takes the tier from a trusted request and asks for the project only without one, or for a user's call", async () => {
    const { deps, projectLookups } = setup();
    const plain = { ...request, idempotencyKey: undefined };
    await ingest(deps, { ...plain, tier: "ultimate" }, ctx("with-tier"));
    expect(projectLookups).toEqual([]);
    await ingest(deps, plain, ctx("without-tier"));
    expect(projectLookups).toEqual([7]);
    await ingest(deps, { ...plain, tier: "ultimate" }, { ...ctx("as-user"), principal: { userId: 5 } });
    expect(projectLookups).toEqual([7, 7]);
  });

  it("waits for a post's jobs at once, and answers as soon as one of them did not finish", async () => {
    const { deps } = setup();
    const jobs = ["a", "b", "c"].map((id) => ({ jobId: id }) as Parameters<typeof deps.jobs.waitFor>[0]);
    const waiting = new Map<string, (ok: boolean) => void>();
    const signals = new Map<string, AbortSignal | undefined>();
    const waits = {
      ...deps,
      jobs: {
        ...deps.jobs,
        waitFor: (job: { jobId: string }, _timeoutMs: number, signal?: AbortSignal) => {
          signals.set(job.jobId, signal);
          return new Promise<boolean>((resolve) => waiting.set(job.jobId, resolve));
        },
      },
      stores: {
        ...deps.stores,
        requests: {
          ...deps.stores.requests,
          jobOutcomes: async (ids: string[]) =>
            new Map(
              ids.map((id) => [id, { iid: 1, title: id, status: "triggered" as const, events: 1, action: "created" as const }]),
            ),
        },
      },
    };
    const all = waitAll(waits, jobs, 5000);
    // Every wait started before any ended (not one after another).
    expect([...waiting.keys()]).toEqual(["a", "b", "c"]);
    for (const id of ["c", "a", "b"]) waiting.get(id)?.(true);
    expect((await all)?.map((o) => o.title)).toEqual(["a", "b", "c"]);
    waiting.clear();
    const one = waitAll(waits, jobs, 5000);
    expect(signals.get("a")?.aborted).toBe(false);
    waiting.get("b")?.(false);
    // "a" and "c" still wait: the answer does not, and their waits are dropped.
    expect(await one).toBeUndefined();
    expect(["a", "c"].map((id) => signals.get(id)?.aborted)).toEqual([true, true]);
    expect(await waitAll(waits, [], 5000)).toEqual([]);
  });
});
