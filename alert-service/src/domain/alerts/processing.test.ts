import { openSqlite } from "@tocsin/store";
import { FakeClock } from "@tocsin/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteAlertsStores } from "../../store/alerts/sqlite-stores.js";
import { destination } from "../../store/channels/contract.js";
import { createSqliteDestinationStore } from "../../store/channels/sqlite-destination-store.js";
import type { DeliveryJob } from "../channels/ports.js";
import { channelsReactor } from "../channels/reactor.js";
import type { AlertJobs, AlertsStores, ProcessAlertJob } from "./ports.js";
import { type ProcessingDeps, processAlertJobs } from "./processing.js";
import { createReactions } from "./reactions.js";

/** processAlertJobs on the embedded stores (in memory): the batch's commits, follow-ups and failures. */

const QUIET = 1;
const WITH_INCIDENTS = 2;

function alertJob(
  requestId: string,
  fields: { projectId?: number; fingerprint: string; title?: string; endedAt?: string; autoResolveMinutes?: number },
): ProcessAlertJob {
  const { projectId = QUIET, autoResolveMinutes, ...alert } = fields;
  return {
    jobId: requestId,
    requestId,
    projectId,
    integrationId: 1,
    alert: {
      title: `alert ${fields.fingerprint}`,
      hosts: [],
      severity: "high",
      startedAt: "2026-11-21T09:00:00.000Z",
      source: "tool",
      payload: {},
      ...alert,
    },
    ...(autoResolveMinutes ? { autoResolveMinutes } : {}),
  };
}

type FollowUps = Parameters<AlertJobs["enqueueFollowUps"]>[0];

describe("processAlertJobs", () => {
  let stores: AlertsStores;
  let enqueued: FollowUps[];
  let failEnqueue: boolean;
  let deps: ProcessingDeps;
  const clock = new FakeClock();

  beforeEach(async () => {
    stores = createSqliteAlertsStores(openSqlite(":memory:"));
    await stores.incidents.updateSettings(WITH_INCIDENTS, { createIncident: true, autoCloseIncident: true }, clock.now());
    enqueued = [];
    failEnqueue = false;
    deps = {
      stores,
      jobs: {
        enqueueIncident: async () => {},
        async enqueueFollowUps(work) {
          if (failEnqueue) throw new Error("queue down");
          enqueued.push(work);
        },
      },
      clock,
      reactions: createReactions([], (projectId) => stores.incidents.settings(projectId)),
      autoResolveMinuteMs: 10,
    };
  });
  afterEach(() => stores.close());

  it("answers each job's outcome in order; a batch enqueues its follow-ups in one call", async () => {
    const { outcomes, error } = await processAlertJobs(deps, [
      alertJob("r1", { fingerprint: "a" }),
      alertJob("r2", { fingerprint: "b", projectId: WITH_INCIDENTS }),
      alertJob("r3", { fingerprint: "a" }),
      alertJob("r4", { fingerprint: "a", endedAt: "2026-11-21T10:00:00Z" }),
      alertJob("r5", { fingerprint: "b", projectId: WITH_INCIDENTS, endedAt: "2026-11-21T10:00:00Z" }),
      alertJob("r6", { fingerprint: "c", endedAt: "2026-11-21T10:00:00Z" }),
    ]);
    expect(error).toBeUndefined();
    expect(outcomes.map((o) => [o.iid, o.action, o.events, o.status])).toEqual([
      [1, "created", 1, "triggered"],
      [1, "created", 1, "triggered"],
      [1, "incremented", 2, "triggered"],
      [1, "resolved", 2, "resolved"],
      [1, "resolved", 1, "resolved"],
      [2, "created_resolved", 1, "resolved"],
    ]);
    expect(enqueued).toHaveLength(1);
    // auto_close_incident is on by default: a recovery asks to close its alert's incident, if any.
    expect(enqueued[0]?.incidents.map((j) => [j.kind, j.requestId])).toEqual([
      ["open", "r2"],
      ["close", "r4"],
      ["close", "r5"],
    ]);
    for (const id of ["r1", "r2", "r3", "r4", "r5", "r6"])
      expect((await stores.requests.jobOutcomes([id])).get(id)).toBeDefined();
  });

  it("schedules auto-resolve after a new alert and each event, delayed by the integration's minutes", async () => {
    await processAlertJobs(deps, [
      alertJob("r1", { fingerprint: "a", autoResolveMinutes: 3 }),
      alertJob("r2", { fingerprint: "a", autoResolveMinutes: 3 }),
    ]);
    expect(enqueued[0]?.autoResolves.map(({ job, delayMs }) => [job.events, job.minutes, delayMs])).toEqual([
      [1, 3, 30],
      [2, 3, 30],
    ]);
  });

  it("a failed enqueue records no outcome of a job that asked for it; the re-run finds its change and asks again", async () => {
    failEnqueue = true;
    const jobs = [alertJob("r1", { fingerprint: "a" }), alertJob("r2", { fingerprint: "b", projectId: WITH_INCIDENTS })];
    const first = await processAlertJobs(deps, jobs);
    expect(first).toMatchObject({ outcomes: [], error: expect.any(Error) });
    // The job that asked for nothing committed its outcome with its change; the other did not.
    expect((await stores.requests.jobOutcomes(["r1"])).get("r1")).toMatchObject({ action: "created" });
    expect((await stores.requests.jobOutcomes(["r2"])).get("r2")).toBeUndefined();
    failEnqueue = false;
    const again = await processAlertJobs(deps, jobs);
    expect(again.outcomes.map((o) => [o.action, o.events])).toEqual([
      ["created", 1],
      ["created", 1],
    ]);
    expect(enqueued.map((w) => w.incidents.map((j) => j.requestId))).toEqual([["r2"]]);
    expect((await stores.alerts.list(WITH_INCIDENTS, { orderBy: "iid", sort: "asc", offset: 0, limit: 10 })).total).toBe(1);
  });

  it("a failing job stops the batch: the jobs before it complete, it and the ones after are left", async () => {
    const create = stores.alerts.create.bind(stores.alerts);
    stores.alerts.create = async (input) => {
      if (input.alert.title === "boom") throw new Error("disk I/O error");
      return create(input);
    };
    const { outcomes, error } = await processAlertJobs(deps, [
      alertJob("r1", { fingerprint: "a" }),
      alertJob("r2", { fingerprint: "b", title: "boom" }),
      alertJob("r3", { fingerprint: "c" }),
    ]);
    expect(outcomes.map((o) => o.iid)).toEqual([1]);
    expect(error).toMatchObject({ message: "disk I/O error" });
    expect((await stores.requests.jobOutcomes(["r3"])).get("r3")).toBeUndefined();
    expect(await stores.alerts.findOpen(QUIET, "c")).toBeUndefined();
  });

  it("a job whose outcome is recorded answers it again and changes nothing", async () => {
    const job = alertJob("r1", { fingerprint: "a" });
    const first = await processAlertJobs(deps, [job]);
    const again = await processAlertJobs(deps, [job, job]);
    expect(again.outcomes).toEqual([first.outcomes[0], first.outcomes[0]]);
    expect((await stores.alerts.findOpen(QUIET, "a"))?.events).toBe(1);
  });

  it.each([
    ["with a fingerprint", QUIET, "a"],
    ["without one", QUIET, undefined],
    ["that asks for an incident", WITH_INCIDENTS, "b"],
  ])(
    "the same job twice in one batch, %s, changes once (its op record, waiting for the outcome, is read by the repeat)",
    async (_, projectId, fingerprint) => {
      const job = alertJob("r1", { projectId, fingerprint: fingerprint as string });
      if (!fingerprint) delete job.alert.fingerprint;
      const { outcomes, error } = await processAlertJobs(deps, [job, alertJob("r2", { fingerprint: "c" }), job]);
      expect(error).toBeUndefined();
      expect(outcomes.map((o) => [o.iid, o.events, o.action])).toEqual([
        [1, 1, "created"],
        [projectId === QUIET ? 2 : 1, 1, "created"],
        [1, 1, "created"],
      ]);
      const listed = await stores.alerts.list(projectId, { orderBy: "created_at", sort: "asc", offset: 0, limit: 20 });
      expect(listed.total).toBe(projectId === QUIET ? 2 : 1);
      // The repeat asks for the same (keyed) incident job again, as a re-run does: one alert's.
      const incidents = enqueued.flatMap((w) => w.incidents);
      expect(new Set(incidents.map((j) => j.alertId)).size).toBe(projectId === QUIET ? 0 : 1);
    },
  );
  it("the channels reactor reads a project's destinations once per batch, and each new alert gets its delivery", async () => {
    const db = openSqlite(":memory:");
    const destinations = createSqliteDestinationStore(db);
    const hook = await destinations.insert(destination(QUIET, "hook"));
    const reads: number[] = [];
    const delivered: DeliveryJob[] = [];
    const reactor = channelsReactor({
      destinations: {
        list: (projectId, kind) => {
          reads.push(projectId);
          return destinations.list(projectId, kind);
        },
      },
      jobs: {
        enqueue: async (jobs) => {
          delivered.push(...jobs);
        },
        enqueueLater: async () => undefined,
      },
    });
    deps = { ...deps, reactions: createReactions([reactor], (projectId) => stores.incidents.settings(projectId)) };
    const batch = (n: number) =>
      processAlertJobs(deps, [
        alertJob(`r${n}a`, { fingerprint: `a${n}` }),
        alertJob(`r${n}b`, { fingerprint: `b${n}`, projectId: WITH_INCIDENTS }),
        alertJob(`r${n}c`, { fingerprint: `c${n}` }),
        alertJob(`r${n}d`, { fingerprint: `a${n}`, endedAt: "2026-11-21T10:00:00Z" }),
      ]);
    expect((await batch(1)).error).toBeUndefined();
    expect(reads.sort()).toEqual([QUIET, WITH_INCIDENTS]);
    // Triggered a1 and c1, resolved a1: one delivery each, to the hook.
    expect(delivered.map((j) => [j.eventType, j.destinationId])).toEqual([
      ["alert.triggered", hook.id],
      ["alert.triggered", hook.id],
      ["alert.resolved", hook.id],
    ]);
    // A destination disabled between batches is read as such by the next one.
    await destinations.update(QUIET, hook.id, { disabled: true, at: clock.now() });
    expect((await batch(2)).error).toBeUndefined();
    expect(reads.sort()).toEqual([QUIET, QUIET, WITH_INCIDENTS, WITH_INCIDENTS]);
    expect(delivered).toHaveLength(3);
    db.close();
  });
});
