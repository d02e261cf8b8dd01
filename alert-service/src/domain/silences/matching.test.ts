import { describe, expect, it } from "vitest";
import { buildSilenceIndex } from "./active-index.js";
import { compileSilence, silenceMatches } from "./matching.js";
import type { Matcher, Silence } from "./model.js";
import { type SilenceSubject, subjectOfAlert } from "./subject.js";

const subject = (over: Partial<SilenceSubject> = {}): SilenceSubject => ({
  labels: { alertname: "HighCPU", severity: "warning", instance: "db-1:9100", job: "node" },
  title: "HighCPU",
  severity: "medium",
  service: "",
  monitoringTool: "Prometheus",
  environment: "production",
  hosts: ["db-1:9100", "db-2:9100"],
  fingerprint: "abc123",
  ...over,
});

const eq = (name: string, value: string): Matcher => ({ name, value, isRegex: false, isEqual: true });
const re = (name: string, value: string): Matcher => ({ name, value, isRegex: true, isEqual: true });
const not = (m: Matcher): Matcher => ({ ...m, isEqual: false });

const silence = (matchers: Matcher[], id = "s1"): Silence => ({
  id,
  projectId: 1,
  matchers,
  startsAt: new Date("2026-11-21T10:00:00.000Z"),
  endsAt: new Date("2026-11-21T12:00:00.000Z"),
  createdBy: "ops",
  comment: "",
  updatedAt: new Date("2026-11-21T10:00:00.000Z"),
});

const matches = (matchers: Matcher[], s = subject()) => silenceMatches(compileSilence(silence(matchers)), s);

describe("silence matchers", () => {
  it("equality on Prometheus labels and on the alert fields of section 13", () => {
    expect(matches([eq("alertname", "HighCPU"), eq("job", "node")])).toBe(true);
    expect(matches([eq("alertname", "HighCPU"), eq("job", "other")])).toBe(false);
    expect(matches([eq("title", "HighCPU")])).toBe(true);
    expect(matches([eq("monitoring_tool", "Prometheus"), eq("environment", "production")])).toBe(true);
    expect(matches([eq("fingerprint", "abc123")])).toBe(true);
    expect(matches([eq("fingerprint", "abc")])).toBe(false);
  });

  it("severity: the Prometheus label and the mapped field both count", () => {
    expect(matches([eq("severity", "warning")])).toBe(true);
    expect(matches([eq("severity", "medium")])).toBe(true);
    expect(matches([eq("severity", "critical")])).toBe(false);
  });

  it("host matches any of hosts; its negation needs none to match", () => {
    expect(matches([eq("host", "db-2:9100")])).toBe(true);
    expect(matches([re("host", "db-2.*")])).toBe(true);
    expect(matches([not(eq("host", "db-2:9100"))])).toBe(false);
    expect(matches([not(eq("host", "web-1"))])).toBe(true);
  });

  it("regular expressions are anchored", () => {
    expect(matches([re("alertname", "High")])).toBe(false);
    expect(matches([re("alertname", "High.*")])).toBe(true);
    expect(matches([re("alertname", "CPU|HighCPU")])).toBe(true);
    expect(matches([not(re("alertname", "High.*"))])).toBe(false);
  });

  it("a missing name reads as the empty string", () => {
    expect(matches([eq("team", "")])).toBe(true);
    expect(matches([eq("service", "")])).toBe(true);
    expect(matches([not(eq("team", "db"))])).toBe(true);
    expect(matches([re("team", ".+")])).toBe(false);
  });

  it("a pathological pattern is evaluated without backtracking", () => {
    const evil = "a".repeat(100_000);
    const s = subject({ labels: { alertname: `${evil}!` }, title: "t" });
    // With a backtracking engine this would not finish; RE2 answers in linear time.
    expect(matches([re("alertname", "(a+)+$")], s)).toBe(false);
    expect(matches([re("alertname", "(a|aa)+!")], s)).toBe(true);
    expect(matches([re("alertname", "(a*)*b")], s)).toBe(false);
  });

  it("an alert's subject: its fields, and its payload's string labels only for Prometheus alerts", () => {
    const alert = {
      title: "Disk full",
      severity: "high" as const,
      service: "billing",
      monitoringTool: "Prometheus",
      environmentName: "",
      hosts: ["db-1"],
      fingerprint: undefined,
      payload: { labels: { alertname: "DiskFull", replicas: 2, team: "db" } },
    };
    expect(subjectOfAlert(alert, true)).toEqual({
      labels: { alertname: "DiskFull", team: "db" },
      title: "Disk full",
      severity: "high",
      service: "billing",
      monitoringTool: "Prometheus",
      environment: "",
      hosts: ["db-1"],
      fingerprint: "",
    });
    expect(subjectOfAlert(alert, false).labels).toEqual({});
    expect(subjectOfAlert({ ...alert, payload: { labels: ["x"] } }, true).labels).toEqual({});
  });
});

describe("the active silence index", () => {
  const at = new Date("2026-11-21T11:00:00.000Z");

  it("finds the same silences as trying each one, with 1,000 silences", () => {
    const silences: Silence[] = [];
    for (let i = 0; i < 1000; i++) {
      const kind = i % 4;
      const matchers =
        kind === 0
          ? [eq("alertname", `Alert${i % 50}`), eq("job", i % 3 ? "node" : "db")]
          : kind === 1
            ? [eq("host", `db-${i % 7}:9100`)]
            : kind === 2
              ? [re("alertname", `Alert${i % 50}|HighCPU`), not(eq("job", "db"))]
              : [eq("severity", i % 2 ? "warning" : "critical"), re("instance", `db-${i % 5}.*`)];
      silences.push(silence(matchers, `s${String(i).padStart(4, "0")}`));
    }
    const index = buildSilenceIndex(silences);
    const subjects = [
      subject(),
      subject({ labels: { alertname: "Alert7", job: "node" }, hosts: ["db-3:9100"] }),
      subject({ labels: { alertname: "Alert12", job: "db", severity: "critical", instance: "db-2:1" }, hosts: [] }),
    ];
    for (const s of subjects) {
      const expected = silences.filter((x) => silenceMatches(compileSilence(x), s)).map((x) => x.id);
      expect(expected.length).toBeGreaterThan(0);
      expect(index.covering(s, at)).toEqual(expected);
    }
  });

  it("regex-only silences, joined 32 to an alternation, match as each one alone does", () => {
    const patterns = ["(?i)highcpu", "High|Low", "a^", ".*CPU", "[", "x{2,}", "(High)(CPU)", "(?s).+", "db-1:9100|web-1"];
    const silences = Array.from({ length: 100 }, (_, i) =>
      silence([re(i % 2 ? "alertname" : "host", patterns[i % patterns.length] ?? "")], `r${String(i).padStart(3, "0")}`),
    );
    const index = buildSilenceIndex(silences);
    for (const s of [
      subject(),
      subject({ labels: { alertname: "Low" }, hosts: ["web-1"] }),
      subject({ labels: {}, hosts: [] }),
    ]) {
      const expected = silences.filter((x) => silenceMatches(compileSilence(x), s)).map((x) => x.id);
      expect(index.covering(s, at)).toEqual(expected);
    }
    expect(index.covering(subject(), at).length).toBeGreaterThan(0);
  });

  it("counts only silences active at the time asked", () => {
    const pending = { ...silence([eq("job", "node")], "p"), startsAt: new Date("2026-11-21T11:30:00.000Z") };
    const index = buildSilenceIndex([silence([eq("job", "node")], "a"), pending]);
    expect(index.covering(subject(), at)).toEqual(["a"]);
    expect(index.covering(subject(), new Date("2026-11-21T11:30:00.000Z"))).toEqual(["a", "p"]);
    expect(index.covering(subject(), new Date("2026-11-21T12:00:00.000Z"))).toEqual([]);
  });

  it("gives the gate the covering silences and the earliest of their ends", () => {
    const short = { ...silence([eq("job", "node")], "b"), endsAt: new Date("2026-11-21T11:15:00.000Z") };
    const index = buildSilenceIndex([silence([re("alertname", "High.*")], "a"), short, silence([eq("job", "db")], "c")]);
    expect(index.verdict(subject(), at)).toEqual({ silencedBy: ["a", "b"], recheckAt: short.endsAt });
    expect(index.verdict(subject(), short.endsAt)).toEqual({
      silencedBy: ["a"],
      recheckAt: new Date("2026-11-21T12:00:00.000Z"),
    });
    expect(index.verdict(subject({ labels: {}, title: "x" }), at)).toEqual({ silencedBy: [], recheckAt: undefined });
  });
});
