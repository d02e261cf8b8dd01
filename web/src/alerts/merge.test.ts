import { describe, expect, it } from "vitest";
import { compareAlerts, mergePage } from "./merge";
import type { Alert } from "./types";

const alert = (iid: number, over: Partial<Alert>): Alert => ({
  iid,
  title: `a${iid}`,
  description: null,
  severity: "critical",
  status: "triggered",
  service: null,
  monitoring_tool: null,
  hosts: [],
  events: 1,
  fingerprint: null,
  started_at: "2026-01-01T00:00:00.000Z",
  ended_at: null,
  environment: null,
  incident: null,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  silenced_by: [],
  ...over,
});

describe("the Open tab's merge of triggered and acknowledged lists", () => {
  const triggered = [alert(5, { events: 9 }), alert(3, { events: 4 }), alert(1, { events: 1 })];
  const acknowledged = [alert(4, { events: 7, status: "acknowledged" }), alert(2, { events: 2, status: "acknowledged" })];

  it("pages the union in the API's order (the field, then creation)", () => {
    expect(mergePage([triggered, acknowledged], "events", "desc", 1, 2).map((a) => a.iid)).toEqual([5, 4]);
    expect(mergePage([triggered, acknowledged], "events", "desc", 2, 2).map((a) => a.iid)).toEqual([3, 2]);
    expect(mergePage([triggered, acknowledged], "events", "desc", 3, 2).map((a) => a.iid)).toEqual([1]);
  });

  it("puts the most severe first for severity descending, ties by creation", () => {
    const list = [alert(1, { severity: "low" }), alert(2, { severity: "critical" }), alert(3, { severity: "critical" })];
    expect([...list].sort(compareAlerts("severity", "desc")).map((a) => a.iid)).toEqual([3, 2, 1]);
    expect([...list].sort(compareAlerts("severity", "asc")).map((a) => a.iid)).toEqual([1, 2, 3]);
  });

  it("orders by start time", () => {
    const list = [alert(1, { started_at: "2026-01-02T00:00:00.000Z" }), alert(2, { started_at: "2026-01-01T00:00:00.000Z" })];
    expect([...list].sort(compareAlerts("started_at", "desc")).map((a) => a.iid)).toEqual([1, 2]);
  });
});
