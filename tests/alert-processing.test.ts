import { sha1Hex, silentLogger } from "@tocsin/core";
import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { AlertsUseCases } from "../alert-service/src/domain/alerts/use-cases.js";
import type { IntegrationRuntime } from "../alert-service/src/domain/types.js";
import { ctx, type Harness, type QueueKind, type StoreKind, startHarness } from "./alert-processing.fixtures.js";

const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
if (!mongoUrl) console.warn("[alert processing] MongoDB-protocol server unavailable: MongoDB scenarios are SKIPPED");
if (!redisUrl) console.warn("[alert processing] Redis unavailable: BullMQ scenarios are SKIPPED");

const combos: Array<[StoreKind, QueueKind, boolean]> = [
  ["sqlite", "local", true],
  ["sqlite", "bullmq", !!redisUrl],
  ["mongo", "local", !!mongoUrl],
  ["mongo", "bullmq", !!mongoUrl && !!redisUrl],
];

const post = (
  m: AlertsUseCases,
  i: IntegrationRuntime,
  payload: unknown,
  extra: { waitMs?: number; idempotencyKey?: string } = {},
) =>
  m.ingest(
    { projectId: i.projectId, integrationId: i.id, payloadJson: JSON.stringify(payload), waitMs: 10_000, ...extra },
    ctx("ingest"),
  );

for (const [store, queue, available] of combos) {
  describe.skipIf(!available)(`alert processing on ${store} with the ${queue} queue`, () => {
    let h: Harness;
    let m: AlertsUseCases;
    beforeAll(async () => {
      h = await startHarness(store, queue, { mongoUrl, redisUrl });
      m = h.runtime.useCases;
    });
    /** The job handlers of the runtime's processing (it runs in the test's thread: FakeClock, no thread configured). */
    const handlers = () => {
      if (!h.runtime.processing) throw new Error("processing runs in the processing thread");
      return h.runtime.processing.handlers;
    };
    afterAll(async () => h?.close());

    it("timeline: post A, post A again, post A with end_time → one alert, events 2, resolved, incident closed", async () => {
      const p = h.world.project("free");
      const i = h.world.integration(p, { name: "Monitor" });
      await m.updateAlertSettings(String(p), { createIncident: true }, ctx());
      const a = { title: "Disk full", fingerprint: "disk-1", monitoring_tool: "Zabbix" };
      const first = await post(m, i, a);
      expect(first).toMatchObject({ processed: true, replayed: false, fingerprints: [sha1Hex("disk-1")] });
      expect(first.outcomes).toEqual([{ iid: 1, title: "Disk full", status: "triggered", events: 1, action: "created" }]);
      await until(async () => (await m.getAlert(String(p), 1, ctx())).incidentIid === 1);
      const second = await post(m, i, a);
      expect(second.outcomes).toEqual([{ iid: 1, title: "Disk full", status: "triggered", events: 2, action: "incremented" }]);
      const third = await post(m, i, { ...a, end_time: "2026-11-21T10:05:00Z" });
      expect(third.outcomes).toEqual([{ iid: 1, title: "Disk full", status: "resolved", events: 2, action: "resolved" }]);
      const alert = await m.getAlert(String(p), 1, ctx());
      expect(alert).toMatchObject({ events: 2, status: "resolved", incidentIid: 1 });
      expect(alert.endedAt?.toISOString()).toBe("2026-11-21T10:05:00.000Z");
      expect(alert.activity.map((e) => e.note)).toEqual([
        "logged an alert from **Zabbix**",
        "created incident #1",
        "logged a recovery alert from **Zabbix**",
        "changed the status to **Resolved**",
      ]);
      const incident = await until(async () => {
        const inc = await m.getIncident(String(p), 1, ctx());
        return inc.status === "closed" && inc;
      });
      expect(incident).toMatchObject({ title: "Disk full", alertIid: 1, severity: "critical" });
      expect((await m.listAlerts({ projectIdOrPath: String(p) }, ctx())).total).toBe(1);
    });

    it("a recovery for an alert never seen is recorded as a new alert already resolved", async () => {
      const p = h.world.project();
      const i = h.world.integration(p);
      const r = await post(m, i, { fingerprint: "never-seen", end_time: Date.parse("2026-11-21T09:00:00Z") });
      expect(r.outcomes).toEqual([{ iid: 1, title: "New: Alert", status: "resolved", events: 1, action: "created_resolved" }]);
      const again = await post(m, i, { fingerprint: "never-seen" });
      expect(again.outcomes[0]).toMatchObject({ iid: 2, action: "created", status: "triggered" });
      const alert = await m.getAlert(String(p), 1, ctx());
      expect(alert.activity.map((e) => e.note)).toEqual([
        "logged a recovery alert from **Generic Alert Endpoint**",
        "changed the status to **Resolved**",
      ]);
    });

    it("Free without a fingerprint field never groups; Premium groups identical payloads ignoring hosts and times", async () => {
      const free = h.world.integration(h.world.project("free"));
      await post(m, free, { title: "same" });
      const second = await post(m, free, { title: "same" });
      expect(second.fingerprints).toEqual([""]);
      expect(second.outcomes[0]).toMatchObject({ iid: 2, action: "created" });
      const premium = h.world.integration(h.world.project("premium"));
      const a = await post(m, premium, { title: "same", hosts: "h1", start_time: "2026-11-21T09:00:00Z" });
      const b = await post(m, premium, { title: "same", hosts: ["h2"], start_time: "2026-11-21T09:01:00Z" });
      expect(b.fingerprints).toEqual(a.fingerprints);
      expect(b.outcomes[0]).toMatchObject({ iid: 1, events: 2, action: "incremented" });
    });

    it("N = 60 identical payloads posted concurrently give exactly one alert with events = N", async () => {
      const p = h.world.project("premium");
      const i = h.world.integration(p);
      const payload = { title: "Flood", service: "api", severity: "high" };
      const results = await Promise.all(Array.from({ length: 60 }, () => post(m, i, payload, { waitMs: 0 })));
      expect(new Set(results.map((r) => r.requestId)).size).toBe(60);
      const list = await until(async () => {
        const l = await m.listAlerts({ projectIdOrPath: String(p) }, ctx());
        return l.alerts[0]?.events === 60 && l;
      }, 15_000);
      expect(list.total).toBe(1);
      expect(list.alerts[0]).toMatchObject({ iid: 1, events: 60, status: "triggered" });
    });

    it("jobs racing outside the lanes still give one alert: the store's unique rule and re-find-and-increment", async () => {
      const p = h.world.project();
      const i = h.world.integration(p);
      const alert = {
        title: "Race",
        hosts: [],
        severity: "critical" as const,
        startedAt: new Date().toISOString(),
        source: "s",
        payload: {},
        fingerprint: "race",
      };
      const jobs = Array.from({ length: 50 }, (_, n) => ({
        jobId: `race-${p}-${n}`,
        requestId: `race-${n}`,
        projectId: p,
        integrationId: i.id,
        alert,
      }));
      const outcomes = await Promise.all(jobs.map((j) => handlers().processAlert(j, silentLogger())));
      expect(outcomes.filter((o) => o.action === "created")).toHaveLength(1);
      const list = await m.listAlerts({ projectIdOrPath: String(p) }, ctx());
      expect(list.total).toBe(1);
      expect(list.alerts[0]?.events).toBe(50);
    });

    it("a trigger followed at once by its recovery always ends resolved", async () => {
      const p = h.world.project();
      const i = h.world.integration(p);
      for (let n = 0; n < 10; n++) {
        const fp = `flap-${n}`;
        const [t, r] = await Promise.all([
          post(m, i, { fingerprint: fp }, { waitMs: 0 }),
          new Promise((res) => setImmediate(res)).then(() =>
            post(m, i, { fingerprint: fp, end_time: "2026-11-21T10:00:00Z" }, { waitMs: 0 }),
          ),
        ]);
        expect(t.fingerprints).toEqual(r.fingerprints);
      }
      await until(async () => {
        const l = await m.listAlerts({ projectIdOrPath: String(p), perPage: 100 }, ctx());
        return l.total === 10 && l.alerts.every((a) => a.status === "resolved") && l;
      }, 15_000);
    });

    it("an Idempotency-Key repeat is not processed again and gets the first answer", async () => {
      const p = h.world.project();
      const i = h.world.integration(p);
      const first = await post(m, i, { fingerprint: "idem" }, { idempotencyKey: "key-1" });
      const repeat = await post(m, i, { fingerprint: "idem" }, { idempotencyKey: "key-1" });
      expect(repeat.requestId).toBe(first.requestId);
      expect(repeat.replayed).toBe(true);
      expect(repeat.outcomes).toEqual(first.outcomes);
      const other = await post(m, i, { fingerprint: "idem" }, { idempotencyKey: "key-2" });
      expect(other.outcomes[0]).toMatchObject({ events: 2 });
    });

    it("running a job twice changes nothing the second time, even after its record is lost", async () => {
      const p = h.world.project();
      const i = h.world.integration(p);
      await post(m, i, { fingerprint: "rerun" });
      const job = {
        jobId: `rerun-${Date.now()}`,
        requestId: "rerun",
        projectId: p,
        integrationId: i.id,
        alert: {
          title: "t",
          hosts: [],
          severity: "critical" as const,
          startedAt: new Date().toISOString(),
          source: "s",
          payload: {},
          fingerprint: (await m.getAlert(String(p), 1, ctx())).fingerprint,
        },
      };
      const logger = silentLogger();
      expect((await handlers().processAlert(job, logger)).events).toBe(2);
      expect((await handlers().processAlert(job, logger)).events).toBe(2);
      const recovery = { ...job, jobId: `${job.jobId}-r`, alert: { ...job.alert, endedAt: "2026-11-21T10:00:00.000Z" } };
      expect((await handlers().processAlert(recovery, logger)).action).toBe("resolved");
      // A crash after the change but before the job record was written: the op stored with the
      // alert still makes the re-run a no-op.
      await h.dropJobRecord(recovery.jobId);
      await h.dropJobRecord(job.jobId);
      expect((await h.runtime.stores.requests.jobOutcomes([recovery.jobId])).get(recovery.jobId)).toBeUndefined();
      expect((await handlers().processAlert(recovery, logger)).action).toBe("resolved");
      expect((await handlers().processAlert(job, logger)).events).toBe(2);
      const alert = await m.getAlert(String(p), 1, ctx());
      expect(alert).toMatchObject({ events: 2, status: "resolved" });
      expect(alert.activity.filter((e) => e.note.includes("Resolved"))).toHaveLength(1);
    });

    it("a batch: a job failing in the middle leaves the ones before it applied once and the rest to a re-run, which applies nothing twice", async () => {
      const p = h.world.project("free");
      const i = h.world.integration(p);
      const requestId = `batch-${Date.now()}`;
      const job = (index: number, fingerprint: string) => ({
        jobId: index ? `${requestId}#${index}` : requestId,
        requestId,
        projectId: p,
        integrationId: i.id,
        alert: {
          title: `alert ${fingerprint}`,
          hosts: [],
          severity: "critical" as const,
          startedAt: new Date().toISOString(),
          source: "s",
          payload: {},
          fingerprint: sha1Hex(fingerprint),
        },
      });
      const jobs = ["a", "b", "b", "c", "d", "d"].map((f, n) => job(n, f));
      const logger = silentLogger();
      const { alerts } = h.runtime.stores;
      const create = alerts.create.bind(alerts);
      alerts.create = async (input) => {
        if (input.alert.fingerprint === sha1Hex("c")) throw new Error("disk on fire");
        return create(input);
      };
      try {
        const first = await handlers().processAlerts(jobs, logger);
        expect(first.outcomes.map((o) => [o.iid, o.action, o.events])).toEqual([
          [1, "created", 1],
          [2, "created", 1],
          [2, "incremented", 2],
        ]);
        expect((first.error as Error).message).toBe("disk on fire");
      } finally {
        alerts.create = create;
      }
      expect((await m.listAlerts({ projectIdOrPath: String(p) }, ctx())).total).toBe(2);
      // A crash after the batch's changes but before its records: the re-run finds each change.
      for (const j of jobs.slice(0, 3)) await h.dropJobRecord(j.jobId);
      const again = await handlers().processAlerts(jobs, logger);
      expect(again.error).toBeUndefined();
      // A found change answers with the alert as it is now (b has had its second event).
      expect(again.outcomes.map((o) => [o.iid, o.action, o.events])).toEqual([
        [1, "created", 1],
        [2, "created", 2],
        [2, "incremented", 2],
        [3, "created", 1],
        [4, "created", 1],
        [4, "incremented", 2],
      ]);
      const listed = await m.listAlerts({ projectIdOrPath: String(p), orderBy: "iid", sort: "asc" }, ctx());
      expect(listed.alerts.map((a) => [a.iid, a.events])).toEqual([
        [1, 1],
        [2, 2],
        [3, 1],
        [4, 2],
      ]);
      expect((await handlers().processAlerts(jobs, logger)).outcomes).toEqual(again.outcomes);
    });
  });
}
