import { AppError, silentLogger } from "@tocsin/core";
import { describe, expect, it } from "vitest";
import type { AlertOutcome } from "../domain/alerts/model.js";
import type { AutoResolveJob, IncidentJob, ProcessAlertJob } from "../domain/alerts/ports.js";
import { createAlertJobs, createPagingQueueJobs } from "./alert-jobs.js";
import { laneOf } from "./job-facts.js";
import { createJobWorker, type JobHandlers } from "./lane-worker.js";
import type { JobOutcome, JobQueue, QueuedJob, RunningJob } from "./queue.js";
import { UnrecoverableJobError } from "./queue.js";
import { createTimerRunner } from "./timer-runner.js";

/** A JobQueue that records what is added (the queue's own behaviour has its contract suite, contract.ts). */
function recordingQueue(): JobQueue & { added: QueuedJob[] } {
  const added: QueuedJob[] = [];
  return {
    added,
    add: async (job) => void added.push(job),
    addBulk: async (jobs) => void added.push(...jobs),
    start: async () => {},
    waitFor: async () => ({ state: "completed", result: { changed: true } }),
    counts: async () => ({ pending: 0, processed: 0, failed: 0 }),
    healthy: async () => true,
    close: async () => {},
  };
}

const alert = {
  title: "t",
  hosts: [],
  severity: "high" as const,
  startedAt: "2026-11-21T09:00:00.000Z",
  source: "s",
  payload: {},
};
const processJob = (id: string): RunningJob => ({
  id,
  name: "process-alert",
  attempt: 1,
  data: { jobId: id, requestId: id, projectId: 1, integrationId: 1, alert } satisfies ProcessAlertJob,
});
const incident: IncidentJob = { kind: "open", requestId: "r", projectId: 1, alertId: 9, laneKey: "1:fp" };
const incidentRun = (id: string): RunningJob => ({ id, name: "incident", attempt: 1, data: incident });
const outcome = (iid: number): AlertOutcome => ({ iid, title: "t", status: "triggered", events: 1, action: "created" });

/** Handlers that record their calls; `fail` decides per job id whether (and with what) one throws. */
function recordingHandlers(fail: (id: string) => unknown = () => undefined) {
  const calls: string[] = [];
  const handlers: JobHandlers = {
    async processAlerts(jobs) {
      calls.push(`processAlerts(${jobs.map((j) => j.jobId).join(",")})`);
      const outcomes: AlertOutcome[] = [];
      for (const job of jobs) {
        const error = fail(job.jobId);
        if (error) return { outcomes, error };
        outcomes.push(outcome(outcomes.length + 1));
      }
      return { outcomes };
    },
    async incident(job) {
      calls.push(`incident(${job.kind})`);
      const error = fail(`incident-${job.kind}`);
      if (error) throw error;
    },
    autoResolve: async () => void calls.push("autoResolve"),
    setStatus: async () => ({ changed: true }),
    pageStart: async () => void calls.push("pageStart"),
    pageRule: async (job) => void calls.push(`pageRule(${job.rule},${job.round})`),
    unsilence: async () => void calls.push("unsilence"),
  };
  return { handlers, calls };
}

const ok = (outcomes: JobOutcome[]) => outcomes.map((o) => o.ok);

describe("laneOf", () => {
  it("puts one key in one lane, always, within the lanes", () => {
    const keys = Array.from({ length: 200 }, (_, i) => `1:fingerprint-${i}`);
    for (const key of keys) {
      expect(laneOf(key)).toBe(laneOf(key));
      expect(laneOf(key)).toBeGreaterThanOrEqual(0);
      expect(laneOf(key)).toBeLessThan(8);
    }
    expect(new Set(keys.map((k) => laneOf(k))).size).toBe(8);
    expect(laneOf("1:a", 3)).toBeLessThan(3);
  });
});

describe("createAlertJobs", () => {
  it("keys follow-up jobs by alert (incidents in the alert's lane, auto-resolve delayed on the timer queue)", async () => {
    const queue = recordingQueue();
    const timers = recordingQueue();
    const jobs = createAlertJobs(queue, timers);
    const auto: AutoResolveJob = { requestId: "r", projectId: 1, alertId: 9, events: 3, minutes: 5, laneKey: "1:fp" };
    await jobs.enqueueFollowUps({
      incidents: [incident, { ...incident, kind: "close", requestId: "r2" }],
      autoResolves: [{ job: auto, delayMs: 300_000 }],
    });
    expect(queue.added.map((j) => [j.id, j.name, j.lane])).toEqual([
      ["incident-open-9", "incident", laneOf("1:fp")],
      ["incident-close-9-r2", "incident", laneOf("1:fp")],
    ]);
    expect(timers.added).toMatchObject([{ id: "auto-resolve-9-3", name: "auto-resolve", lane: 0, delayMs: 300_000 }]);
  });

  it("runs a status change in the alert's lane, keyed by the request, and answers its result", async () => {
    const queue = recordingQueue();
    const jobs = createAlertJobs(queue, recordingQueue());
    const job = { requestId: "u1", projectId: 1, alertId: 9, status: "acknowledged" as const, at: "x", laneKey: "1:fp" };
    expect(await jobs.changeStatus(job, 1000)).toEqual({ changed: true });
    expect(queue.added).toMatchObject([{ id: "status-u1", name: "set-status", lane: laneOf("1:fp") }]);
  });

  it("turns a queue that cannot take the alerts into UNAVAILABLE (QUEUE_UNAVAILABLE)", async () => {
    const queue = recordingQueue();
    queue.addBulk = async () => {
      throw new Error("disk full");
    };
    const jobs = createAlertJobs(queue, recordingQueue());
    const data = processJob("r1").data as ProcessAlertJob;
    await expect(jobs.enqueueAlerts([data])).rejects.toMatchObject({ code: "UNAVAILABLE", reason: "QUEUE_UNAVAILABLE" });
  });
});

describe("createAlertJobs.waitFor", () => {
  it("waits in the job's own lane, derived from the job: nothing is remembered per accepted job", async () => {
    const asked: Array<[string, number]> = [];
    const queue = {
      ...recordingQueue(),
      waitFor: async (id: string, lane: number) => {
        asked.push([id, lane]);
        // As the lane worker ends a process-alert job: its outcome is in the request log, not here.
        return { state: "completed" as const, result: null };
      },
    };
    // Enqueued by one AlertJobs (a replica, or before a restart), waited for through another.
    const data = processJob("req-1:0").data as ProcessAlertJob;
    await createAlertJobs(queue, recordingQueue()).enqueueAlerts([data]);
    expect(await createAlertJobs(queue, recordingQueue()).waitFor(data, 1000)).toBe(true);
    expect(asked).toEqual([["req-1:0", queue.added[0]?.lane]]);
  });
});

describe("createJobWorker", () => {
  const worker = (handlers: JobHandlers) => createJobWorker(handlers, silentLogger(), {});

  it("runs consecutive process-alert jobs of a batch together, the other jobs one by one, in order", async () => {
    const { handlers, calls } = recordingHandlers();
    const outcomes = await worker(handlers).batch([processJob("a"), processJob("b"), incidentRun("i"), processJob("c")]);
    expect(ok(outcomes)).toEqual([true, true, true, true]);
    expect(calls).toEqual(["processAlerts(a,b)", "incident(open)", "processAlerts(c)"]);
    // A process-alert job's outcome stays in the request log: the queue's end carries no copy.
    expect(outcomes.filter((_, i) => i !== 2)).toEqual([0, 1, 2].map(() => ({ ok: true, result: null })));
  });

  it("stops at the first failure: the jobs before it succeed, it fails, the ones after do not run", async () => {
    const { handlers, calls } = recordingHandlers((id) => (id === "b" ? new Error("busy") : undefined));
    const outcomes = await worker(handlers).batch([processJob("a"), processJob("b"), processJob("c"), incidentRun("i")]);
    expect(ok(outcomes)).toEqual([true, false]);
    expect(outcomes[1]).toMatchObject({ error: { message: "busy" } });
    expect(calls).toEqual(["processAlerts(a,b,c)"]);
  });

  it("invalid data and INVALID_ARGUMENT / NOT_FOUND errors are unrecoverable; other errors retry", async () => {
    const invalid = await worker(recordingHandlers().handlers).batch([{ id: "x", name: "incident", attempt: 1, data: {} }]);
    expect(invalid[0]).toMatchObject({ ok: false, error: expect.any(UnrecoverableJobError) });
    const unknown = await worker(recordingHandlers().handlers).batch([{ id: "y", name: "what", attempt: 1, data: {} }]);
    expect(unknown[0]).toMatchObject({ ok: false, error: expect.any(UnrecoverableJobError) });
    const notFound = new AppError("NOT_FOUND", "NOT_FOUND", "gone");
    const gone = await worker(recordingHandlers(() => notFound).handlers).batch([incidentRun("i")]);
    expect(gone[0]).toMatchObject({ ok: false, error: expect.any(UnrecoverableJobError) });
    const transient = new Error("connection reset");
    const retry = await worker(recordingHandlers(() => transient).handlers).batch([incidentRun("i")]);
    expect(retry[0]).toEqual({ ok: false, error: transient });
  });

  it("takes any JSON object as a process-alert job's payload, as it is, and nothing else", async () => {
    const seen: ProcessAlertJob[] = [];
    const { handlers } = recordingHandlers();
    const capturing: JobHandlers = {
      ...handlers,
      processAlerts: (jobs, logger) => {
        seen.push(...jobs);
        return handlers.processAlerts(jobs, logger);
      },
    };
    const payload = { labels: { alertname: "Disk" }, values: [1, "two", null], nested: { deep: { er: true } } };
    const job = (id: string, p: unknown): RunningJob => ({
      ...processJob(id),
      data: { ...(processJob(id).data as object), alert: { ...alert, payload: p } },
    });
    expect(ok(await worker(capturing).batch([job("a", payload)]))).toEqual([true]);
    expect(seen[0]?.alert.payload).toBe(payload);
    for (const bad of [[1, 2], null, "text", 3, undefined]) {
      const [outcome] = await worker(capturing).batch([job("b", bad)]);
      expect(outcome).toMatchObject({ ok: false, error: expect.any(UnrecoverableJobError) });
    }
    expect(seen).toHaveLength(1);
  });
});

describe("createTimerRunner", () => {
  it("moves a due auto-resolve job into its alert's lane under the same id", async () => {
    const queue = recordingQueue();
    const auto: AutoResolveJob = { requestId: "r", projectId: 1, alertId: 9, events: 3, minutes: 5, laneKey: "1:fp" };
    const run = await createTimerRunner(queue).batch([{ id: "auto-resolve-9-3", name: "auto-resolve", attempt: 1, data: auto }]);
    expect(ok(run)).toEqual([true]);
    expect(queue.added).toEqual([{ id: "auto-resolve-9-3", name: "auto-resolve-apply", lane: laneOf("1:fp"), data: auto }]);
    const bad = await createTimerRunner(queue).batch([{ id: "z", name: "auto-resolve", attempt: 1, data: {} }]);
    expect(bad[0]).toMatchObject({ ok: false, error: expect.any(UnrecoverableJobError) });
  });

  it("moves a due page-rule job, with whom it pages, into its alert's lane under its page key, where the worker runs it", async () => {
    const queue = recordingQueue();
    const timers = recordingQueue();
    const policy = {
      id: 1,
      name: "P",
      rules: [{ status: "acknowledged" as const, elapsedSeconds: 60, user: { id: 3, username: "ann" } }],
      repeatEverySeconds: null,
      maxRepeats: 0,
    };
    const rule = {
      requestId: "r",
      projectId: 1,
      alertId: 9,
      laneKey: "1:fp",
      triggerOp: "op",
      triggeredAt: "2026-11-21T09:00:00.000Z",
      rule: 0,
      round: 0,
      policy,
    };
    await createPagingQueueJobs(timers).enqueueRules([{ job: rule, delayMs: 60_000 }]);
    expect(timers.added).toEqual([{ id: "page:9:op:0:0", name: "page-rule", lane: 0, data: rule, delayMs: 60_000 }]);
    // The runner asks who is on call (here: the rule's user, an active member) before the move.
    const lookups = {
      directory: { policy: async () => undefined, oncall: async () => undefined },
      members: { members: async () => [{ id: 3, username: "ann", email: "ann@example.com", blocked: false }] },
      escalations: { get: async () => undefined },
    };
    const moved = await createTimerRunner(queue, lookups).batch([
      { id: "page:9:op:0:0", name: "page-rule", attempt: 1, data: rule },
      { id: "bad", name: "page-rule", attempt: 1, data: {} },
    ]);
    expect(ok(moved)).toEqual([true, false]);
    const applied = { ...rule, oncall: { users: [{ id: 3, username: "ann" }], skipped: [] } };
    expect(queue.added).toEqual([{ id: "page:9:op:0:0", name: "page-rule-apply", lane: laneOf("1:fp"), data: applied }]);
    const { handlers, calls } = recordingHandlers();
    const run = await createJobWorker(handlers, silentLogger(), {}).batch([
      { id: "page:9:op:0:0", name: "page-rule-apply", attempt: 1, data: applied },
    ]);
    expect(ok(run)).toEqual([true]);
    expect(calls).toEqual(["pageRule(0,0)"]);
  });

  it("moves a page-start into its lane with the policy read now, unless the project has none and the alert never escalated", async () => {
    const queue = recordingQueue();
    const policy = { id: 1, name: "P", rules: [], repeatEverySeconds: null, maxRepeats: 0 };
    const start = (alertId: number, projectId: number) => ({
      requestId: "r",
      projectId,
      alertId,
      laneKey: `${projectId}:fp${alertId}`,
      triggerOp: "op",
      triggeredAt: "2026-11-21T09:00:00.000Z",
    });
    let policyCalls = 0;
    const lookups = {
      // Project 1 has a policy, project 2 none; alert 22 (project 2) escalated under an earlier trigger.
      directory: {
        policy: async (projectId: number) => {
          policyCalls++;
          return projectId === 1 ? policy : undefined;
        },
        oncall: async () => undefined,
      },
      members: { members: async () => [] },
      escalations: { get: async (alertId: number) => (alertId === 22 ? ({} as never) : undefined) },
    };
    const moved = await createTimerRunner(queue, lookups).batch(
      [start(11, 1), start(21, 2), start(22, 2)].map((data) => ({
        id: `page-start:${data.alertId}:op`,
        name: "page-start",
        attempt: 1,
        data,
      })),
    );
    expect(ok(moved)).toEqual([true, true, true]);
    // Alert 21: no policy, nothing to stop: no lane job. Alert 22: policy null stops the earlier escalation.
    expect(
      queue.added.map((j) => [j.name, (j.data as { alertId: number }).alertId, (j.data as { policy: unknown }).policy]),
    ).toEqual([
      ["page-start-apply", 11, policy],
      ["page-start-apply", 22, null],
    ]);
    // One read per project and batch (two projects).
    expect(policyCalls).toBe(2);
  });
});
