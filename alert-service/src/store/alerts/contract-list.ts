import { beforeAll, expect, it } from "vitest";
import { listOfStatuses } from "../../domain/alerts/list-statuses.js";
import type { AlertStatus, NormalizedAlert } from "../../domain/alerts/model.js";
import type { AlertQuery, AlertsStores } from "../../domain/alerts/ports.js";
import { alertInput, at, nextProject } from "./contract-fixtures.js";

const query = (q: Partial<AlertQuery> = {}): AlertQuery => ({ orderBy: "created_at", sort: "desc", offset: 0, limit: 20, ...q });

/** The alerts stores contract's listing cases; registered inside `describeAlertsStoresContract`. */
export function registerListCases(getStores: () => AlertsStores): void {
  let s: AlertsStores;
  beforeAll(() => {
    s = getStores();
  });

  it("lists with status filter, search, order and paging", async () => {
    const p = nextProject();
    await s.alerts.create(alertInput(p, { title: "CPU hot", severity: "low", service: "api" }));
    const b = await s.alerts.create(alertInput(p, { title: "Disk full", severity: "critical", hosts: ["Storage-7"] }));
    await s.alerts.create(alertInput(p, { title: "Memory 50%_used", severity: "info" }));
    await s.alerts.setStatus(b.id, "acknowledged", undefined, at);
    expect((await s.alerts.list(p, query())).total).toBe(3);
    expect((await s.alerts.list(p, query({ status: "acknowledged" }))).alerts.map((a) => a.iid)).toEqual([2]);
    expect((await s.alerts.list(p, query({ search: "storage" }))).alerts.map((a) => a.iid)).toEqual([2]);
    expect((await s.alerts.list(p, query({ search: "API" }))).alerts.map((a) => a.iid)).toEqual([1]);
    expect((await s.alerts.list(p, query({ search: "50%_" }))).total).toBe(1);
    expect((await s.alerts.list(p, query({ search: "%" }))).total).toBe(1);
    expect((await s.alerts.list(p, query({ orderBy: "iid", sort: "asc" }))).alerts.map((a) => a.iid)).toEqual([1, 2, 3]);
    expect((await s.alerts.list(p, query({ orderBy: "severity", sort: "desc" }))).alerts.map((a) => a.severity)).toEqual([
      "critical",
      "low",
      "info",
    ]);
    expect((await s.alerts.list(p, query({ orderBy: "severity", sort: "asc" }))).alerts.map((a) => a.severity)).toEqual([
      "info",
      "low",
      "critical",
    ]);
    const page = await s.alerts.list(p, query({ orderBy: "iid", sort: "asc", offset: 2, limit: 2 }));
    expect(page.alerts.map((a) => a.iid)).toEqual([3]);
    expect(page.total).toBe(3);
  });

  it("several statuses merged from one list per status keep the store's order (the list's comma-separated status)", async () => {
    const p = nextProject();
    const plan: [AlertStatus, NormalizedAlert["severity"], number][] = [
      ["triggered", "high", 3],
      ["acknowledged", "critical", 1],
      ["resolved", "low", 4],
      ["triggered", "critical", 1],
      ["ignored", "info", 2],
      ["acknowledged", "high", 3],
      ["triggered", "high", 1],
      ["resolved", "critical", 5],
    ];
    for (const [status, severity, hour] of plan) {
      const startedAt = new Date(at.getTime() - hour * 3_600_000).toISOString();
      const a = await s.alerts.create(alertInput(p, { severity, startedAt }));
      if (status !== "triggered") await s.alerts.setStatus(a.id, status, undefined, new Date(at.getTime() + hour * 60_000));
    }
    const fields = ["created_at", "updated_at", "started_at", "ended_at", "severity", "status", "events", "iid"] as const;
    for (const orderBy of fields) {
      for (const sort of ["asc", "desc"] as const) {
        for (const [offset, limit] of [
          [0, 20],
          [0, 3],
          [3, 3],
          [6, 3],
        ] as const) {
          const q = query({ orderBy, sort, offset, limit });
          const all = await s.alerts.list(p, q);
          const merged = await listOfStatuses(s.alerts, p, ["triggered", "acknowledged", "resolved", "ignored"], q);
          expect(
            merged.alerts.map((a) => a.iid),
            `${orderBy} ${sort} ${offset}+${limit}`,
          ).toEqual(all.alerts.map((a) => a.iid));
          expect(merged.total).toBe(8);
        }
      }
      const open = await listOfStatuses(s.alerts, p, ["triggered", "acknowledged"], query({ orderBy, sort: "desc" }));
      const expected = (await s.alerts.list(p, query({ orderBy, sort: "desc" }))).alerts.filter(
        (a) => a.status === "triggered" || a.status === "acknowledged",
      );
      expect(open.alerts.map((a) => a.iid)).toEqual(expected.map((a) => a.iid));
      expect(open.total).toBe(5);
    }
  });
}
