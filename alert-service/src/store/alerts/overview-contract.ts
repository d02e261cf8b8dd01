import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NormalizedAlert, Severity } from "../../domain/alerts/model.js";
import { overviewWindow } from "../../domain/alerts/overview-model.js";
import type { AlertsStores, NewAlert } from "../../domain/alerts/ports.js";

const now = new Date("2026-11-21T10:30:00.000Z");
const t = (iso: string) => new Date(iso);
let projectSeq = 5_000_000 + Math.floor(Math.random() * 1000) * 1000;
let opSeq = 0;
const op = () => `overview-op-${Date.now()}-${++opSeq}`;

function newAlert(
  projectId: number,
  severity: Severity,
  startedAt: string,
  fields: Partial<NormalizedAlert> = {},
  status: NewAlert["status"] = "triggered",
): NewAlert {
  return {
    projectId,
    integrationId: 1,
    status,
    opKey: op(),
    at: now,
    alert: { title: `${severity} at ${startedAt}`, hosts: [], severity, startedAt, source: "tool", payload: {}, ...fields },
  };
}

const byBucket = <T extends { bucket: number; severity?: string }>(rows: T[]) =>
  [...rows].sort((a, b) => a.bucket - b.bucket || String(a.severity).localeCompare(String(b.severity)));

/**
 * One behavioural suite for every AlertOverviewStore, on alerts with known times. The window is
 * that of now = 2026-11-21T10:30Z: hours from 2026-11-20T11:00Z to 2026-11-21T11:00Z, days from
 * 2026-10-23 to 2026-11-21 (buckets 0–29), the last 7 days from 2026-11-15.
 */
export function describeAlertOverviewContract(
  name: string,
  make: () => Promise<{ stores: AlertsStores; cleanup(): Promise<void> }>,
) {
  describe(`alert overview contract: ${name}`, () => {
    let s: AlertsStores;
    let cleanup: () => Promise<void>;
    const p = ++projectSeq;
    const other = ++projectSeq;
    let fromC: { title: string };

    beforeAll(async () => {
      ({ stores: s, cleanup } = await make());
      // A: critical, this hour, fingerprint fa, 3 events, acknowledged after 10 minutes (still open).
      const a = await s.alerts.create(newAlert(p, "critical", "2026-11-21T10:05:00.000Z", { fingerprint: "fa", service: "db" }));
      await s.alerts.registerEvent(a.id, op(), now);
      await s.alerts.registerEvent(a.id, op(), now);
      await s.alerts.setStatus(a.id, "acknowledged", undefined, t("2026-11-21T10:15:00.000Z"));
      // B: high, two hours ago, fingerprint fb, triggered.
      await s.alerts.create(newAlert(p, "high", "2026-11-21T08:00:00.000Z", { fingerprint: "fb", service: "web" }));
      // C: critical, the first hour of the hourly window, fingerprint fa, recorded resolved after 1 h.
      const c = await s.alerts.create(
        newAlert(
          p,
          "critical",
          "2026-11-20T11:00:00.000Z",
          { fingerprint: "fa", service: "db", endedAt: "2026-11-20T12:00:00.000Z" },
          "resolved",
        ),
      );
      fromC = c;
      // D: medium, one minute before the hourly window, no fingerprint; acknowledged after 1 h, resolved after 2 h.
      const d = await s.alerts.create(newAlert(p, "medium", "2026-11-20T10:59:00.000Z", { service: "web" }));
      await s.alerts.setStatus(d.id, "acknowledged", undefined, t("2026-11-20T11:59:00.000Z"));
      await s.alerts.setStatus(d.id, "triggered", undefined, t("2026-11-20T12:10:00.000Z"));
      await s.alerts.setStatus(d.id, "acknowledged", undefined, t("2026-11-20T12:20:00.000Z"));
      await s.alerts.setStatus(d.id, "resolved", t("2026-11-20T12:59:00.000Z"), t("2026-11-20T12:59:00.000Z"));
      // E: low, 11 days ago (outside the 7 days), 5 events, resolved after one day.
      const e = await s.alerts.create(newAlert(p, "low", "2026-11-10T00:00:00.000Z", { fingerprint: "fe", service: "db" }));
      for (let i = 0; i < 4; i++) await s.alerts.registerEvent(e.id, op(), now);
      await s.alerts.resolve(e.id, t("2026-11-11T00:00:00.000Z"), op(), now);
      // F: info, one minute before the daily window, open. G: critical, starts at the window's end, open.
      await s.alerts.create(newAlert(p, "info", "2026-10-22T23:59:00.000Z"));
      await s.alerts.create(newAlert(p, "critical", "2026-11-22T00:00:00.000Z"));
      // Another project's alerts count only for it.
      await s.alerts.create(newAlert(other, "critical", "2026-11-21T10:00:00.000Z", { fingerprint: "fa", service: "db" }));
      await s.alerts.create(newAlert(other, "low", "2026-11-21T10:00:00.000Z"));
    });
    afterAll(async () => cleanup?.());

    it("counts open alerts by status and severity, started alerts per hour and per day by severity", async () => {
      const o = await s.overview.overview(p, overviewWindow(now));
      expect(byBucket(o.open.map((c) => ({ ...c, bucket: c.status === "triggered" ? 0 : 1 })))).toEqual([
        { bucket: 0, status: "triggered", severity: "critical", count: 1 },
        { bucket: 0, status: "triggered", severity: "high", count: 1 },
        { bucket: 0, status: "triggered", severity: "info", count: 1 },
        { bucket: 1, status: "acknowledged", severity: "critical", count: 1 },
      ]);
      expect(byBucket(o.hourly)).toEqual([
        { bucket: 0, severity: "critical", count: 1 },
        { bucket: 21, severity: "high", count: 1 },
        { bucket: 23, severity: "critical", count: 1 },
      ]);
      expect(byBucket(o.daily)).toEqual([
        { bucket: 18, severity: "low", count: 1 },
        { bucket: 28, severity: "critical", count: 1 },
        { bucket: 28, severity: "medium", count: 1 },
        { bucket: 29, severity: "critical", count: 1 },
        { bucket: 29, severity: "high", count: 1 },
      ]);
    });

    it("sums times to the first acknowledgement and to resolution per day of start", async () => {
      const o = await s.overview.overview(p, overviewWindow(now));
      const days = new Map<number, { acknowledged: number; acknowledgeMsSum: number; resolved: number; resolveMsSum: number }>();
      for (const r of o.responses) {
        const d = days.get(r.bucket) ?? { acknowledged: 0, acknowledgeMsSum: 0, resolved: 0, resolveMsSum: 0 };
        d.acknowledged += r.acknowledged;
        d.acknowledgeMsSum += r.acknowledgeMsSum;
        d.resolved += r.resolved;
        d.resolveMsSum += r.resolveMsSum;
        days.set(r.bucket, d);
      }
      // Day 29: A acknowledged after 10 min. Day 28: C resolved after 1 h; D acknowledged after
      // 1 h (its second acknowledgement does not count) and resolved after 2 h. Day 18: E after 1 day.
      expect(days.get(29)).toEqual({ acknowledged: 1, acknowledgeMsSum: 600_000, resolved: 0, resolveMsSum: 0 });
      expect(days.get(28)).toEqual({ acknowledged: 1, acknowledgeMsSum: 3_600_000, resolved: 2, resolveMsSum: 10_800_000 });
      expect(days.get(18)).toEqual({ acknowledged: 0, acknowledgeMsSum: 0, resolved: 1, resolveMsSum: 86_400_000 });
      expect([...days.keys()].sort((a, b) => a - b)).toEqual([18, 28, 29]);
    });

    it("ranks the noisiest fingerprints and services of the last 7 days by events", async () => {
      const o = await s.overview.overview(p, overviewWindow(now));
      expect(o.noisiestFingerprints).toEqual([
        { fingerprint: "fa", title: fromC.title, service: "db", events: 4, alerts: 2 },
        { fingerprint: "fb", title: "high at 2026-11-21T08:00:00.000Z", service: "web", events: 1, alerts: 1 },
      ]);
      expect(o.noisiestServices).toEqual([
        { service: "db", events: 4, alerts: 2 },
        { service: "web", events: 2, alerts: 2 },
      ]);
    });

    it("counts the open alerts of several projects at once", async () => {
      const counts = await s.overview.openCounts([other, p, ++projectSeq]);
      const of = (id: number) =>
        counts
          .filter((c) => c.projectId === id)
          .map((c) => `${c.status}:${c.severity}:${c.count}`)
          .sort();
      expect(of(other)).toEqual(["triggered:critical:1", "triggered:low:1"]);
      expect(of(p)).toEqual(["acknowledged:critical:1", "triggered:critical:1", "triggered:high:1", "triggered:info:1"]);
      expect(counts.filter((c) => c.projectId === projectSeq)).toEqual([]);
      expect(await s.overview.openCounts([])).toEqual([]);
    });

    it("filters the alerts list by severity, monitoring tool and service (exact, any case)", async () => {
      const q = ++projectSeq;
      await s.alerts.create(newAlert(q, "critical", "2026-11-21T10:00:00.000Z", { monitoringTool: "Prometheus", service: "db" }));
      await s.alerts.create(
        newAlert(q, "critical", "2026-11-21T10:01:00.000Z", { monitoringTool: "Zabbix", service: "db-replica" }),
      );
      await s.alerts.create(newAlert(q, "low", "2026-11-21T10:02:00.000Z", { monitoringTool: "prometheus", service: "web" }));
      const list = async (f: { severity?: Severity; monitoringTool?: string; service?: string }) =>
        (await s.alerts.list(q, { ...f, orderBy: "iid", sort: "asc", offset: 0, limit: 20 })).alerts.map((a) => a.iid);
      expect(await list({ severity: "critical" })).toEqual([1, 2]);
      expect(await list({ monitoringTool: "PROMETHEUS" })).toEqual([1, 3]);
      expect(await list({ service: "db" })).toEqual([1]);
      expect(await list({ severity: "critical", monitoringTool: "prometheus", service: "DB" })).toEqual([1]);
      expect(await list({ service: "d." })).toEqual([]);
    });

    it("answers empty counts for a project without alerts", async () => {
      expect(await s.overview.overview(++projectSeq, overviewWindow(now))).toEqual({
        open: [],
        hourly: [],
        daily: [],
        responses: [],
        noisiestFingerprints: [],
        noisiestServices: [],
      });
    });
  });
}
