import { openSqlite } from "@tocsin/store";
import { FakeClock } from "@tocsin/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteAlertsStores } from "../../store/alerts/sqlite-stores.js";
import type { ClaimedMail, Notifier } from "../mail/pipeline.js";
import type { NotifyJob } from "../mail/ports.js";
import { emailReactor } from "../mail/reactor.js";
import { autoResolveJob, autoResolveJobId } from "./auto-resolve.js";
import { incidentJob } from "./incidents.js";
import type { AlertsStores, AutoResolveJob, IncidentJob, ProcessAlertJob, StatusChangeJob } from "./ports.js";
import { type ProcessingDeps, processAlertJobs } from "./processing.js";
import { type AlertEvent, createReactions, type Reactor } from "./reactions.js";
import { statusChangeJob } from "./status-change.js";

/** A reactor that records what reaches it: the events claimed, the claims enqueued. */
function recorder() {
  const claimed: AlertEvent[] = [];
  const enqueued: string[] = [];
  const reactor: Reactor<string> = {
    name: "recorder",
    async claim(event) {
      claimed.push(event);
      return event.id;
    },
    async enqueue(claims) {
      enqueued.push(...claims);
    },
  };
  return { reactor, claimed, enqueued, ids: () => claimed.map((e) => e.id) };
}

const PROJECT = 7;

function alertJob(requestId: string, fields: { fingerprint: string; endedAt?: string }): ProcessAlertJob {
  return {
    jobId: requestId,
    requestId,
    projectId: PROJECT,
    integrationId: 1,
    alert: {
      title: `alert ${fields.fingerprint}`,
      hosts: [],
      severity: "high",
      startedAt: "2026-11-21T09:00:00.000Z",
      source: "tool",
      payload: {},
      ...fields,
    },
  };
}

describe("Reactions: every path that changes an alert emits its event into the dispatcher", () => {
  let stores: AlertsStores;
  let rec: ReturnType<typeof recorder>;
  let deps: ProcessingDeps;
  const clock = new FakeClock();

  beforeEach(async () => {
    stores = createSqliteAlertsStores(openSqlite(":memory:"));
    await stores.incidents.updateSettings(PROJECT, { createIncident: true, autoCloseIncident: true }, clock.now());
    rec = recorder();
    deps = {
      stores,
      jobs: { enqueueIncident: async () => {}, enqueueFollowUps: async () => {} },
      clock,
      reactions: createReactions([rec.reactor], (projectId) => stores.incidents.settings(projectId)),
    };
  });
  afterEach(() => stores.close());

  const process = async (...jobs: ProcessAlertJob[]) => {
    const result = await processAlertJobs(deps, jobs);
    if (result.error) throw result.error;
    return result.outcomes;
  };
  const alertIdOf = async (iid: number) => (await stores.alerts.get(PROJECT, iid))?.id ?? 0;

  it("the processing job: a new alert and a recovery; a repeat and an alert created already resolved are none", async () => {
    await process(alertJob("r1", { fingerprint: "a" }), alertJob("r2", { fingerprint: "a" }));
    await process(alertJob("r3", { fingerprint: "a", endedAt: "2026-11-21T10:00:00Z" }));
    await process(alertJob("r4", { fingerprint: "never-seen", endedAt: "2026-11-21T10:00:00Z" }));
    const a = await alertIdOf(1);
    expect(rec.ids()).toEqual([`${a}:alert.triggered:r1`, `${a}:alert.resolved:r3`]);
    expect(rec.claimed.map((e) => e.by)).toEqual(["processing", "processing"]);
    expect(rec.claimed[0]).toMatchObject({ kind: "alert.triggered", projectId: PROJECT, alertId: a, requestId: "r1" });
    expect(rec.enqueued).toEqual(rec.ids());
  });

  it("a user's status changes: acknowledged, ignored, set back to triggered, resolved; no change is no event", async () => {
    await process(alertJob("r1", { fingerprint: "b" }));
    const alertId = await alertIdOf(1);
    const change = (requestId: string, status: StatusChangeJob["status"]): StatusChangeJob => {
      clock.advance(1000);
      return { requestId, projectId: PROJECT, alertId, status, at: clock.now().toISOString(), laneKey: "k" };
    };
    for (const job of [
      change("u1", "acknowledged"),
      change("u2", "acknowledged"),
      change("u3", "ignored"),
      change("u4", "triggered"),
      change("u5", "resolved"),
    ])
      await statusChangeJob(deps, job);
    expect(rec.ids().slice(1)).toEqual([
      `${alertId}:alert.acknowledged:status-u1`,
      `${alertId}:alert.ignored:status-u3`,
      `${alertId}:alert.triggered:status-u4`,
      `${alertId}:alert.resolved:status-u5`,
    ]);
    expect(new Set(rec.claimed.slice(1).map((e) => e.by))).toEqual(new Set(["status-change"]));
  });

  it("auto-resolve, and the incident job's open and close", async () => {
    await process(alertJob("r1", { fingerprint: "c" }), alertJob("r2", { fingerprint: "d" }));
    const c = await alertIdOf(1);
    const d = await alertIdOf(2);
    const auto: AutoResolveJob = { requestId: "r1", projectId: PROJECT, alertId: c, events: 1, minutes: 5, laneKey: "k" };
    await autoResolveJob(deps, auto);
    const open: IncidentJob = { kind: "open", requestId: "r2", projectId: PROJECT, alertId: d, laneKey: "k" };
    await incidentJob(deps, open);
    await process(alertJob("r3", { fingerprint: "d", endedAt: "2026-11-21T10:00:00Z" }));
    await incidentJob(deps, { ...open, kind: "close", requestId: "r3" });
    expect(rec.ids().slice(2)).toEqual([
      `${c}:alert.resolved:${autoResolveJobId(auto)}`,
      `${d}:incident.opened:incident-open-${d}`,
      `${d}:alert.resolved:r3`,
      `${d}:incident.closed:incident-close-${d}`,
    ]);
    expect(rec.claimed.slice(2).map((e) => e.by)).toEqual(["auto-resolve", "incident", "processing", "incident"]);
  });

  it("a re-run after a crash before its enqueue claims the same ids again, and nothing more", async () => {
    // The processing job: the enqueue fails once, after the change and its claims committed.
    let failEnqueue = true;
    const reactions = deps.reactions;
    deps.reactions = {
      claim: (event, context) => reactions.claim(event, context),
      async enqueue(claims) {
        if (failEnqueue) throw new Error("queue down");
        await reactions.enqueue(claims);
      },
    };
    const job = alertJob("r1", { fingerprint: "e" });
    expect((await processAlertJobs(deps, [job])).error).toBeDefined();
    failEnqueue = false;
    await process(job);
    const alertId = await alertIdOf(1);
    const triggered = `${alertId}:alert.triggered:r1`;
    expect(rec.ids()).toEqual([triggered, triggered]);
    expect(rec.enqueued).toEqual([triggered]);
    // Re-runs of the other paths: the same event, the same id.
    clock.advance(1000);
    const ack: StatusChangeJob = {
      requestId: "u1",
      projectId: PROJECT,
      alertId,
      status: "acknowledged",
      at: clock.now().toISOString(),
      laneKey: "k",
    };
    await statusChangeJob(deps, ack);
    await statusChangeJob(deps, ack);
    const open: IncidentJob = { kind: "open", requestId: "r1", projectId: PROJECT, alertId, laneKey: "k" };
    await incidentJob(deps, open);
    await incidentJob(deps, open);
    const acked = `${alertId}:alert.acknowledged:status-u1`;
    const opened = `${alertId}:incident.opened:incident-open-${alertId}`;
    expect(rec.ids().slice(2)).toEqual([acked, acked, opened, opened]);
    expect((await stores.incidents.list(PROJECT, undefined, 0, 10)).total).toBe(1);
    // The close: a re-run finds the incident closed and claims the same event, at the same time;
    // so does another close job of the alert.
    const close: IncidentJob = { ...open, kind: "close", requestId: "r9" };
    await incidentJob(deps, close);
    clock.advance(1000);
    await incidentJob(deps, close);
    await incidentJob(deps, { ...close, requestId: "r10" });
    const closed = `${alertId}:incident.closed:incident-close-${alertId}`;
    expect(rec.ids().slice(6)).toEqual([closed, closed, closed]);
    expect(new Set(rec.claimed.slice(6).map((e) => e.at.getTime())).size).toBe(1);
  });
});

describe("the e-mail reactor", () => {
  it("claims a mail for the processing job's new alert and recovery only, when send_email is on", async () => {
    const claims: NotifyJob[] = [];
    const notifier: Notifier = {
      async claim(job) {
        claims.push(job);
        return { notify: job };
      },
      async enqueue(_: ClaimedMail[]) {},
    };
    let sendEmail = true;
    const settings = async () => ({ createIncident: false, autoCloseIncident: false, sendEmail });
    const reactions = createReactions([emailReactor(notifier)], settings);
    const event = (kind: AlertEvent["kind"], by: AlertEvent["by"]): AlertEvent => ({
      id: `1:${kind}:op`,
      kind,
      projectId: PROJECT,
      alertId: 1,
      requestId: "r",
      at: new Date(),
      by,
    });
    for (const kind of ["alert.triggered", "alert.resolved", "alert.acknowledged", "incident.opened"] as const)
      for (const by of ["processing", "status-change", "auto-resolve", "incident"] as const)
        await reactions.claim(event(kind, by));
    expect(claims.map((c) => c.transition)).toEqual(["triggered", "resolved"]);
    sendEmail = false;
    expect(await reactions.claim(event("alert.triggered", "processing"))).toEqual([]);
    expect(claims).toHaveLength(2);
  });
});
