import { openSqlite } from "@tocsin/store";
import { FakeClock } from "@tocsin/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteAlertsStores } from "../../store/alerts/sqlite-stores.js";
import { createSqliteSilenceStore } from "../../store/silences/sqlite-silence-store.js";
import type { AlertsStores, ProcessAlertJob, UnsilenceJob } from "../alerts/ports.js";
import { type ProcessingDeps, processAlertJobs } from "../alerts/processing.js";
import { type AlertEvent, createReactions, type Reactor } from "../alerts/reactions.js";
import { statusChangeJob } from "../alerts/status-change.js";
import { unsilenceJob } from "../alerts/unsilence.js";
import { createSilenceIndexCache } from "./active-index.js";
import { createSilenceGate } from "./gate.js";
import type { Matcher } from "./model.js";
import type { SilenceStore } from "./ports.js";

const PROJECT = 3;
const eq = (name: string, value: string): Matcher => ({ name, value, isRegex: false, isEqual: true });

function job(requestId: string, fields: Partial<ProcessAlertJob["alert"]> & { fingerprint: string }): ProcessAlertJob {
  return {
    jobId: requestId,
    requestId,
    projectId: PROJECT,
    integrationId: 1,
    alert: {
      title: fields.fingerprint,
      hosts: [],
      severity: "high",
      startedAt: "2026-11-21T09:00:00.000Z",
      source: "t",
      payload: {},
      ...fields,
    },
  };
}

/** Timeline tests of the gate inside Reactions, on the real processing paths and stores (time by a fake clock). */
describe("the silence gate", () => {
  let stores: AlertsStores;
  let silences: SilenceStore;
  let deps: ProcessingDeps;
  let reached: AlertEvent[];
  let timers: UnsilenceJob[];
  const clock = new FakeClock("2026-11-21T10:00:00.000Z");
  const minute = 60_000;

  beforeEach(() => {
    clock.set("2026-11-21T10:00:00.000Z");
    const db = openSqlite(":memory:");
    stores = createSqliteAlertsStores(db);
    silences = createSqliteSilenceStore(db);
    reached = [];
    timers = [];
    const reactor: Reactor<string> = {
      name: "recorder",
      claim: async (event) => {
        reached.push(event);
        return event.id;
      },
      enqueue: async () => {},
    };
    const gate = createSilenceGate({
      index: createSilenceIndexCache({ clock, maxAgeMs: 0, load: (p, now) => silences.list(p, { endsAfter: now }) }),
      alertOf: (id) => stores.alerts.getById(id),
      mark: (alertId, ids, at) => silences.markSilenced(alertId, ids, at),
      schedule: async (jobs) => void timers.push(...jobs),
    });
    deps = {
      stores,
      jobs: { enqueueIncident: async () => {}, enqueueFollowUps: async () => {} },
      clock,
      reactions: createReactions([reactor], (p) => stores.incidents.settings(p), gate),
    };
  });
  afterEach(() => stores.close());

  const silence = (id: string, matchers: Matcher[], endMinutes: number) =>
    silences.insert({
      id,
      projectId: PROJECT,
      matchers,
      startsAt: clock.now(),
      endsAt: new Date(clock.now().getTime() + endMinutes * minute),
      createdBy: "t",
      comment: "",
      updatedAt: clock.now(),
    });
  const process = async (...jobs: ProcessAlertJob[]) => {
    const result = await processAlertJobs(deps, jobs);
    if (result.error) throw result.error;
  };
  const kinds = () => reached.map((e) => `${e.kind}:${e.alertId}`);

  it("holds a covered alert's trigger and schedules a timer at the earliest covering end; others pass", async () => {
    await silence("long", [eq("service", "pg")], 60);
    await silence("short", [eq("title", "failover")], 10);
    await process(job("r1", { fingerprint: "failover", service: "pg" }), job("r2", { fingerprint: "disk", service: "web" }));
    const failover = (await stores.alerts.get(PROJECT, 1))?.id;
    const disk = (await stores.alerts.get(PROJECT, 2))?.id;
    expect(kinds()).toEqual([`alert.triggered:${disk}`]);
    expect(timers).toEqual([
      { requestId: "r1", projectId: PROJECT, alertId: failover, at: "2026-11-21T10:10:00.000Z", laneKey: expect.any(String) },
    ]);
    expect(await silences.silencedBy([failover ?? 0, disk ?? 0])).toEqual(new Map([[failover, ["long", "short"]]]));
  });

  it("Prometheus labels count (an Alertmanager alert's payload); a generic payload's `labels` do not", async () => {
    await silence("s", [eq("team", "db")], 60);
    const labels = { alertname: "PgDown", team: "db" };
    await process(job("r1", { fingerprint: "prom", payload: { labels, startsAt: "2026-11-21T09:00:00Z" } }));
    await process(job("r2", { fingerprint: "http", payload: { labels } }));
    expect(kinds()).toEqual([`alert.triggered:${(await stores.alerts.get(PROJECT, 2))?.id}`]);
  });

  it("recoveries always pass; a user's acknowledgement of a silenced alert is held", async () => {
    await silence("s", [eq("service", "pg")], 60);
    await process(job("r1", { fingerprint: "a", service: "pg" }));
    const alertId = (await stores.alerts.get(PROJECT, 1))?.id ?? 0;
    clock.advance(1000);
    const at = clock.now().toISOString();
    await statusChangeJob(deps, { requestId: "u1", projectId: PROJECT, alertId, status: "acknowledged", at, laneKey: "k" });
    await process(job("r2", { fingerprint: "a", service: "pg", endedAt: "2026-11-21T10:05:00Z" }));
    expect(kinds()).toEqual([`alert.resolved:${alertId}`]);
  });

  it("at the timer: unsilenced once no silence covers the still-triggered alert; held again while another does", async () => {
    await silence("short", [eq("service", "pg")], 10);
    await silence("long", [eq("title", "a")], 30);
    await process(job("r1", { fingerprint: "a", service: "pg" }));
    const alertId = (await stores.alerts.get(PROJECT, 1))?.id ?? 0;
    expect(timers.map((t) => t.at)).toEqual(["2026-11-21T10:10:00.000Z"]);

    clock.set("2026-11-21T10:10:00.000Z");
    await unsilenceJob(deps, timers[0] as UnsilenceJob);
    expect(kinds()).toEqual([]);
    expect((await silences.silencedBy([alertId])).get(alertId)).toEqual(["long"]);
    expect(timers.map((t) => t.at)).toEqual(["2026-11-21T10:10:00.000Z", "2026-11-21T10:30:00.000Z"]);

    clock.set("2026-11-21T10:30:00.000Z");
    await unsilenceJob(deps, timers[1] as UnsilenceJob);
    await unsilenceJob(deps, timers[1] as UnsilenceJob); // a re-run: the same event id
    expect(reached.map((e) => e.id)).toEqual([
      `${alertId}:alert.unsilenced:unsilence-${alertId}-${Date.parse("2026-11-21T10:30:00.000Z")}`,
      `${alertId}:alert.unsilenced:unsilence-${alertId}-${Date.parse("2026-11-21T10:30:00.000Z")}`,
    ]);
    expect(await silences.silencedBy([alertId])).toEqual(new Map());
  });

  it("at the timer: an alert no longer triggered is left alone", async () => {
    await silence("s", [eq("service", "pg")], 10);
    await process(job("r1", { fingerprint: "a", service: "pg" }));
    await process(job("r2", { fingerprint: "a", service: "pg", endedAt: "2026-11-21T10:05:00Z" }));
    reached.length = 0;
    clock.set("2026-11-21T10:10:00.000Z");
    await unsilenceJob(deps, timers[0] as UnsilenceJob);
    expect(reached).toEqual([]);
  });
});
