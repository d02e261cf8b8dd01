import { describe, expect, it } from "vitest";
import { fingerprintOf } from "./fingerprint.js";
import type { NormalizeOptions } from "./normalize.js";
import { alertmanagerProblem, normalizeAlertmanager } from "./prometheus.js";

const receivedAt = new Date("2026-11-21T10:00:00.000Z");
const opts: NormalizeOptions = { tier: "free", mapping: null, integrationName: "Prometheus", receivedAt };
const webhook = (alerts: unknown[]) => ({
  version: "4",
  groupKey: "{}:{}",
  truncatedAlerts: 0,
  status: "firing",
  receiver: "tocsin",
  groupLabels: {},
  commonLabels: {},
  commonAnnotations: {},
  externalURL: "http://alertmanager:9093",
  alerts,
});
const one = (alert: Record<string, unknown>) => normalizeAlertmanager(webhook([alert]), opts)[0];

describe("Alertmanager alerts", () => {
  it("severity: labels.severity with the reference's Prometheus aliases", () => {
    const table: Record<string, string> = {
      critical: "critical",
      high: "high",
      medium: "medium",
      low: "low",
      info: "info",
      unknown: "unknown",
      s1: "critical",
      s2: "high",
      s3: "medium",
      s4: "low",
      s5: "info",
      p1: "critical",
      p2: "high",
      p3: "medium",
      p4: "low",
      p5: "info",
      warn: "low",
      warning: "low",
      minor: "low",
      error: "medium",
      alert: "medium",
      major: "high",
      page: "high",
      emergency: "critical",
      fatal: "critical",
      debug: "info",
      information: "info",
      notice: "info",
      WARNING: "low",
      " Page ": "high",
      other: "critical",
    };
    for (const [raw, expected] of Object.entries(table)) {
      expect(one({ labels: { severity: raw } })?.severity, raw).toBe(expected);
    }
    expect(one({ labels: {} })?.severity).toBe("critical");
  });
  it("title: annotations.title, then summary, then labels.alertname, then the default", () => {
    const labels = { alertname: "Name" };
    expect(one({ labels, annotations: { title: "T", summary: "S" } })?.title).toBe("T");
    expect(one({ labels, annotations: { title: " ", summary: "S" } })?.title).toBe("S");
    expect(one({ labels, annotations: {} })?.title).toBe("Name");
    expect(one({})?.title).toBe("New: Alert");
  });
  it("fingerprint from the labels only: stable across firing and resolved, key order ignored", () => {
    const firing = one({ status: "firing", labels: { b: "2", a: "1" }, fingerprint: "f1", startsAt: "2026-11-20T10:00:00Z" });
    const resolved = one({
      status: "resolved",
      labels: { a: "1", b: "2" },
      fingerprint: "other",
      endsAt: "2026-11-20T11:00:00Z",
    });
    expect(firing?.fingerprint).toBe(fingerprintOf({ a: "1", b: "2" }));
    expect(resolved?.fingerprint).toBe(firing?.fingerprint);
  });
  it("ends on status resolved or a past endsAt; the zero time and the future do not end", () => {
    expect(one({ status: "firing", endsAt: "0001-01-01T00:00:00Z" })?.endedAt).toBeUndefined();
    expect(one({ status: "firing", endsAt: "2999-01-01T00:00:00Z" })?.endedAt).toBeUndefined();
    expect(one({ status: "firing", endsAt: "2026-11-21T09:00:00Z" })?.endedAt).toBe("2026-11-21T09:00:00.000Z");
    expect(one({ status: "resolved", endsAt: "2026-11-21T09:30:00.5Z" })?.endedAt).toBe("2026-11-21T09:30:00.500Z");
    expect(one({ status: "resolved", endsAt: "0001-01-01T00:00:00Z" })?.endedAt).toBe(receivedAt.toISOString());
  });
  it("hosts from labels.instance; the stored payload is the one alert", () => {
    const alert = { status: "firing", labels: { instance: "web-1:9100" }, generatorURL: "http://prom/graph" };
    expect(one(alert)).toMatchObject({
      hosts: ["web-1:9100"],
      payload: alert,
      monitoringTool: "Prometheus",
      source: "Prometheus",
    });
  });
  it("says why a body is not an Alertmanager webhook", () => {
    expect(alertmanagerProblem(webhook([]))).toBeUndefined();
    expect(alertmanagerProblem({ title: "x" })).toMatch(/^it lacks version, groupKey/);
    expect(alertmanagerProblem({ ...webhook([]), version: 4 })).toBe('its version is 4, not "4"');
    expect(() => normalizeAlertmanager({ ...webhook([]), alerts: [null] }, opts)).toThrowError(/other than objects/);
  });
});
