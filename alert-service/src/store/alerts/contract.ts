import { rejectionReason } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertsStores } from "../../domain/alerts/ports.js";
import { alertInput, at, nextProject, op } from "./contract-fixtures.js";
import { registerListCases } from "./contract-list.js";

export { alertInput } from "./contract-fixtures.js";

/** One behavioural suite for every AlertsStores adapter. */
export function describeAlertsStoresContract(
  name: string,
  make: () => Promise<{ stores: AlertsStores; cleanup(): Promise<void> }>,
) {
  describe(`alerts stores contract: ${name}`, () => {
    let s: AlertsStores;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      ({ stores: s, cleanup } = await make());
    });
    afterAll(async () => cleanup?.());

    it("creates alerts with per-project iids and keeps the payload", async () => {
      const p = nextProject();
      const a = await s.alerts.create(alertInput(p));
      const b = await s.alerts.create(alertInput(p));
      const other = await s.alerts.create(alertInput(nextProject()));
      expect([a.iid, b.iid, other.iid]).toEqual([1, 2, 1]);
      expect(a).toMatchObject({
        status: "triggered",
        events: 1,
        severity: "high",
        hosts: ["db-1"],
        title: "Disk full",
        incidentIid: 0,
      });
      expect((await s.alerts.get(p, 1))?.payload).toEqual({ title: "Disk full", nested: { "a.b": 1 } });
      expect(await s.alerts.get(p, 99)).toBeUndefined();
    });

    it("allows one unresolved alert per (project, fingerprint), any number resolved", async () => {
      const p = nextProject();
      const open = await s.alerts.create(alertInput(p, { fingerprint: "f1" }));
      expect(await rejectionReason(s.alerts.create(alertInput(p, { fingerprint: "f1" })))).toBe("OPEN_ALERT_EXISTS");
      await s.alerts.create(alertInput(p, { fingerprint: "f1", endedAt: at.toISOString() }, "resolved"));
      await s.alerts.create(alertInput(p, { fingerprint: "f1", endedAt: at.toISOString() }, "resolved"));
      await s.alerts.create(alertInput(nextProject(), { fingerprint: "f1" }));
      expect((await s.alerts.findOpen(p, "f1"))?.id).toBe(open.id);
      await s.alerts.create(alertInput(p));
      await s.alerts.create(alertInput(p));
    });

    it("refuses a second alert for the same op", async () => {
      const p = nextProject();
      const input = alertInput(p);
      await s.alerts.create(input);
      expect(await rejectionReason(s.alerts.create({ ...input }))).toBe("OP_APPLIED");
      const found = await s.alerts.findByOp(p, input.opKey);
      expect(found?.created).toBe(true);
    });

    it("registers events once per op and never on resolved alerts", async () => {
      const p = nextProject();
      const a = await s.alerts.create(alertInput(p, { fingerprint: "f" }));
      const o = op();
      expect((await s.alerts.registerEvent(a.id, o, at))?.events).toBe(2);
      expect(await s.alerts.registerEvent(a.id, o, at)).toBeUndefined();
      expect((await s.alerts.findByOp(p, o))?.created).toBe(false);
      const r = await s.alerts.resolve(a.id, new Date("2026-11-21T11:00:00Z"), op(), at);
      expect(r).toMatchObject({ status: "resolved", events: 2 });
      expect(r?.endedAt?.toISOString()).toBe("2026-11-21T11:00:00.000Z");
      expect(await s.alerts.registerEvent(a.id, op(), at)).toBeUndefined();
      expect(await s.alerts.resolve(a.id, at, op(), at)).toBeUndefined();
      expect(await s.alerts.findOpen(p, "f")).toBeUndefined();
      await s.alerts.create(alertInput(p, { fingerprint: "f" }));
    });

    it("keeps op idempotency across many events", async () => {
      const p = nextProject();
      const a = await s.alerts.create(alertInput(p, { fingerprint: "many" }));
      const ops = Array.from({ length: 80 }, () => op());
      for (const o of ops) await s.alerts.registerEvent(a.id, o, at);
      const last = ops[79] as string;
      expect(await s.alerts.registerEvent(a.id, last, at)).toBeUndefined();
      expect((await s.alerts.getById(a.id))?.events).toBe(81);
    });

    it("status changes keep the one-open rule", async () => {
      const p = nextProject();
      const first = await s.alerts.create(alertInput(p, { fingerprint: "g" }));
      const resolved = await s.alerts.setStatus(first.id, "resolved", at, at);
      expect(resolved.endedAt?.toISOString()).toBe(at.toISOString());
      const second = await s.alerts.create(alertInput(p, { fingerprint: "g" }));
      expect(await rejectionReason(s.alerts.setStatus(first.id, "acknowledged", undefined, at))).toBe("OPEN_ALERT_EXISTS");
      expect((await s.alerts.setStatus(second.id, "ignored", undefined, at)).status).toBe("ignored");
      expect((await s.alerts.findOpen(p, "g"))?.id).toBe(second.id);
      await s.alerts.setStatus(second.id, "resolved", at, at);
      const reopened = await s.alerts.setStatus(first.id, "triggered", undefined, at);
      expect(reopened).toMatchObject({ status: "triggered", endedAt: undefined });
      expect((await s.alerts.findOpen(p, "g"))?.id).toBe(first.id);
      expect(await rejectionReason(s.alerts.create(alertInput(p, { fingerprint: "g" })))).toBe("OPEN_ALERT_EXISTS");
    });

    it("finds the open alert of a fingerprint after resolves and new alerts", async () => {
      const p = nextProject();
      const first = await s.alerts.create(alertInput(p, { fingerprint: "h" }));
      await s.alerts.resolve(first.id, at, op(), at);
      expect(await s.alerts.findOpen(p, "h")).toBeUndefined();
      const second = await s.alerts.create(alertInput(p, { fingerprint: "h" }));
      expect((await s.alerts.findOpen(p, "h"))?.id).toBe(second.id);
      expect(await s.alerts.findOpen(p + 1000, "h")).toBeUndefined();
    });

    registerListCases(() => s);

    it("activity is ordered and idempotent per key", async () => {
      const a = await s.alerts.create(alertInput(nextProject()));
      await s.alerts.addActivity(a.id, "k1", "logged an alert from **tool**", at);
      await s.alerts.addActivity(a.id, "k2", "changed the status to **Resolved**", at);
      await s.alerts.addActivity(a.id, "k1", "logged an alert from **tool**", at);
      expect((await s.alerts.activity(a.id)).map((e) => e.note)).toEqual([
        "logged an alert from **tool**",
        "changed the status to **Resolved**",
      ]);
    });

    it("opens one incident per alert, with per-project iids, and closes it once", async () => {
      const p = nextProject();
      const a = await s.alerts.create(alertInput(p));
      const b = await s.alerts.create(alertInput(p));
      const base = { projectId: p, severity: "high" as const, at };
      const first = await s.incidents.openForAlert({ ...base, alertId: a.id, alertIid: a.iid, title: undefined });
      const again = await s.incidents.openForAlert({ ...base, alertId: a.id, alertIid: a.iid, title: undefined });
      const second = await s.incidents.openForAlert({ ...base, alertId: b.id, alertIid: b.iid, title: "Disk full" });
      expect(first).toMatchObject({
        created: true,
        incident: { iid: 1, title: "New: Incident 1", status: "open", alertIid: a.iid },
      });
      expect(again).toMatchObject({ created: false, incident: { id: first.incident.id } });
      expect(second.incident).toMatchObject({ iid: 2, title: "Disk full" });
      expect((await s.incidents.close(first.incident.id, at))?.status).toBe("closed");
      expect(await s.incidents.close(first.incident.id, at)).toBeUndefined();
      expect((await s.incidents.list(p, "open", 0, 20)).incidents.map((i) => i.iid)).toEqual([2]);
      expect((await s.incidents.list(p, undefined, 0, 20)).total).toBe(2);
      expect((await s.incidents.get(p, 1))?.closedAt?.toISOString()).toBe(at.toISOString());
      expect((await s.incidents.getByAlert(b.id))?.iid).toBe(2);
    });

    it("settings default and merge partial updates", async () => {
      const p = nextProject();
      expect(await s.incidents.settings(p)).toEqual({ createIncident: false, autoCloseIncident: true, sendEmail: false });
      expect(await s.incidents.updateSettings(p, { createIncident: true }, at)).toEqual({
        createIncident: true,
        autoCloseIncident: true,
        sendEmail: false,
      });
      expect(await s.incidents.updateSettings(p, { autoCloseIncident: false, sendEmail: undefined }, at)).toEqual({
        createIncident: true,
        autoCloseIncident: false,
        sendEmail: false,
      });
      expect(await s.incidents.settings(p)).toEqual({ createIncident: true, autoCloseIncident: false, sendEmail: false });
    });

    it("idempotency keys keep the first answer until they expire", async () => {
      const key = `key-${op()}`;
      const later = new Date(at.getTime() + 86_400_000);
      const first = await s.requests.reserve(3, key, { requestId: "r1", fingerprints: ["f"] }, later, at);
      const second = await s.requests.reserve(3, key, { requestId: "r2", fingerprints: [] }, later, at);
      const otherIntegration = await s.requests.reserve(4, key, { requestId: "r3", fingerprints: [] }, later, at);
      expect(first).toEqual({ answer: { requestId: "r1", fingerprints: ["f"] }, existed: false });
      expect(second).toEqual({ answer: { requestId: "r1", fingerprints: ["f"] }, existed: true });
      expect(otherIntegration.existed).toBe(false);
      const expired = await s.requests.reserve(
        3,
        key,
        { requestId: "r4", fingerprints: [] },
        new Date(later.getTime() + 1000),
        later,
      );
      expect(expired).toEqual({ answer: { requestId: "r4", fingerprints: [] }, existed: false });
    });

    it("writes a new alert's notes with it, once, before later notes", async () => {
      const p = nextProject();
      const input = alertInput(p, { fingerprint: "notes" });
      const a = await s.alerts.create({
        ...input,
        notes: [{ key: `${input.opKey}:alert`, note: "logged an alert from **tool**" }],
      });
      await s.alerts.addActivity(a.id, `${input.opKey}:alert`, "logged an alert from **tool**", at);
      await s.alerts.addActivity(a.id, "later", "changed the status to **Resolved**", at);
      expect((await s.alerts.activity(a.id)).map((e) => e.note)).toEqual([
        "logged an alert from **tool**",
        "changed the status to **Resolved**",
      ]);
    });

    it("settings read with a max age still see this store's own changes at once", async () => {
      const p = nextProject();
      expect((await s.incidents.settings(p, 60_000)).createIncident).toBe(false);
      await s.incidents.updateSettings(p, { createIncident: true }, at);
      expect((await s.incidents.settings(p, 60_000)).createIncident).toBe(true);
      expect((await s.incidents.settings(p)).createIncident).toBe(true);
    });

    it("tells a re-run of a job from its first run, and hands back a finished job's outcome", async () => {
      const id = `job-${op()}`;
      const outcome = { iid: 3, title: "t", status: "triggered" as const, events: 1, action: "created" as const };
      expect(await s.requests.startJob(id, at)).toEqual({ outcome: undefined, firstRun: true });
      // The first run changes an alert (its op is the job id) and dies before recording its outcome.
      await s.alerts.create({ ...alertInput(nextProject()), opKey: id });
      expect(await s.requests.startJob(id, at)).toEqual({ outcome: undefined, firstRun: false });
      await s.requests.recordJob(id, outcome, at);
      expect(await s.requests.startJob(id, at)).toEqual({ outcome, firstRun: false });
    });

    it("remembers processed jobs until purged", async () => {
      const id = `job-${op()}`;
      const outcome = { iid: 1, title: "t", status: "triggered" as const, events: 1, action: "created" as const };
      await s.requests.recordJob(id, outcome, at);
      await s.requests.recordJob(id, { ...outcome, events: 5 }, at);
      expect((await s.requests.jobOutcomes([id])).get(id)).toEqual(outcome);
      await s.requests.purge(at, new Date(at.getTime() + 1));
      expect((await s.requests.jobOutcomes([id])).get(id)).toBeUndefined();
      await s.ping();
    });

    it("reads the outcomes of several jobs at once, only of those that finished", async () => {
      const [done1, done2, started, unknown] = [`job-${op()}`, `job-${op()}`, `job-${op()}`, `job-${op()}`];
      const outcome = { iid: 1, title: "t", status: "triggered" as const, events: 1, action: "created" as const };
      await s.requests.recordJob(done1, outcome, at);
      await s.requests.recordJob(done2, { ...outcome, iid: 2, action: "incremented" as const }, at);
      await s.requests.startJob(started, at);
      const read = await s.requests.jobOutcomes([done2, started, unknown, done1]);
      expect([...read.keys()].sort()).toEqual([done1, done2].sort());
      expect(read.get(done1)).toEqual(outcome);
      expect(read.get(done2)).toMatchObject({ iid: 2, action: "incremented" });
      expect((await s.requests.jobOutcomes([])).size).toBe(0);
    });
  });
}
