import { sha1Hex } from "@tocsin/core";
import { describe, expect, it } from "vitest";
import { canonicalObject, fingerprintOf, payloadFingerprint } from "./fingerprint.js";
import { type NormalizeOptions, normalizeGeneric } from "./normalize.js";
import { normalizeAlertmanager } from "./prometheus.js";
import { truncate, truncateHosts } from "./text.js";
import { parseEndTime, parseTime } from "./times.js";

const receivedAt = new Date("2026-11-21T10:00:00.000Z");
const free: NormalizeOptions = { tier: "free", mapping: null, integrationName: "", receivedAt };
const premium: NormalizeOptions = { ...free, tier: "premium" };
const norm = (payload: Record<string, unknown>, opts = free) => normalizeGeneric(payload, opts);

describe("title", () => {
  it("defaults to New: Alert when absent, blank or false", () => {
    expect(norm({}).title).toBe("New: Alert");
    expect(norm({ title: "" }).title).toBe("New: Alert");
    expect(norm({ title: "   " }).title).toBe("New: Alert");
    expect(norm({ title: false }).title).toBe("New: Alert");
  });
  it("keeps a given title and stringifies non-strings", () => {
    expect(norm({ title: "Disk full" }).title).toBe("Disk full");
    expect(norm({ title: 42 }).title).toBe("42");
  });
  it("truncates to 200 characters ending ...", () => {
    const title = norm({ title: "e".repeat(201) }).title;
    expect(title).toBe(`${"e".repeat(197)}...`);
    expect(norm({ title: "e".repeat(200) }).title).toBe("e".repeat(200));
  });
});

describe("text fields", () => {
  it("truncates description 1000, service and monitoring_tool 100", () => {
    const a = norm({ description: "d".repeat(1001), service: "s".repeat(101), monitoring_tool: "m".repeat(150) });
    expect(a.description).toBe(`${"d".repeat(997)}...`);
    expect(a.service).toBe(`${"s".repeat(97)}...`);
    expect(a.monitoringTool).toHaveLength(100);
    expect(truncate("abc", 3)).toBe("abc");
  });
  it("leaves blank fields out", () => {
    const a = norm({ description: " ", service: "" });
    expect(a.description).toBeUndefined();
    expect(a.service).toBeUndefined();
  });
  it("reads platform_environment_name (and gitlab_environment_name)", () => {
    expect(norm({ platform_environment_name: "production" }).environmentName).toBe("production");
    expect(norm({ gitlab_environment_name: "staging" }).environmentName).toBe("staging");
  });
});

describe("severity", () => {
  it.each([
    ["critical", "critical"],
    ["HIGH", "high"],
    ["mEdIuM", "medium"],
    ["low", "low"],
    ["info", "info"],
    ["unknown", "unknown"],
    ["Unknown", "unknown"],
    ["unmapped", "critical"],
    [1, "critical"],
    [null, "critical"],
  ])("%s → %s", (input, expected) => {
    expect(norm({ severity: input }).severity).toBe(expected);
  });
  it("defaults to critical when missing", () => expect(norm({}).severity).toBe("critical"));
});

describe("times", () => {
  it("parses ISO 8601 and Ruby Time#to_s", () => {
    expect(parseTime("2026-11-20T09:00:00Z")?.toISOString()).toBe("2026-11-20T09:00:00.000Z");
    expect(parseTime("2026-11-20T09:00:00.123+02:00")?.toISOString()).toBe("2026-11-20T07:00:00.123Z");
    expect(parseTime("2020-09-17 12:49:54 -0400")?.toISOString()).toBe("2020-09-17T16:49:54.000Z");
    expect(parseTime("2020-09-17")?.toISOString()).toBe("2020-09-17T00:00:00.000Z");
  });
  it("rejects garbage, impossible dates and numbers", () => {
    expect(parseTime("bad time")).toBeUndefined();
    expect(parseTime("2020-02-30T00:00:00Z")).toBeUndefined();
    expect(parseTime(1618877936)).toBeUndefined();
  });
  it("start_time falls back to the time of receipt", () => {
    expect(norm({}).startedAt).toBe(receivedAt.toISOString());
    expect(norm({ start_time: "bad time" }).startedAt).toBe(receivedAt.toISOString());
    expect(norm({ start_time: 1618877936 }).startedAt).toBe(receivedAt.toISOString());
    expect(norm({ start_time: "2026-11-20 09:00:00 +0000" }).startedAt).toBe("2026-11-20T09:00:00.000Z");
  });
  it("end_time accepts 13-digit epoch milliseconds as number or text, not seconds", () => {
    const ms = Date.parse("2026-11-21T09:59:00.000Z");
    expect(parseEndTime(ms)?.toISOString()).toBe("2026-11-21T09:59:00.000Z");
    expect(parseEndTime(String(ms))?.toISOString()).toBe("2026-11-21T09:59:00.000Z");
    expect(parseEndTime(Math.floor(ms / 1000))).toBeUndefined();
    expect(norm({ end_time: ms }).endedAt).toBe("2026-11-21T09:59:00.000Z");
    expect(norm({ end_time: "2026-11-21T09:59:00Z" }).endedAt).toBe("2026-11-21T09:59:00.000Z");
    expect(norm({ end_time: "soon" }).endedAt).toBeUndefined();
  });
});

describe("hosts", () => {
  it("takes a string or a nested array, flattened", () => {
    expect(norm({ hosts: "a.example" }).hosts).toEqual(["a.example"]);
    expect(norm({ hosts: ["a", ["b", ["c"]], 5] }).hosts).toEqual(["a", "b", "c", "5"]);
    expect(norm({}).hosts).toEqual([]);
  });
  it("truncates to 255 characters in all (reference cases with max 9)", () => {
    expect(truncateHosts(["abc", "def", "ghij"], 9)).toEqual(["abc", "def", "ghi"]);
    expect(truncateHosts(["abcde", "fghij"], 9)).toEqual(["abcde", "fghi"]);
    expect(truncateHosts(["abc", "de", "f", "g", "hij"], 9)).toEqual(["abc", "de", "f", "g", "hi"]);
    expect(norm({ hosts: "b".repeat(256) }).hosts).toEqual(["b".repeat(255)]);
    expect(norm({ hosts: ["abc", ["de", "f"], "g", "hij"] }).hosts).toEqual(["abc", "de", "f", "g", "hij"]);
  });
});

describe("payload and source", () => {
  it("keeps the whole payload, nested custom fields included", () => {
    const payload = { title: "x", custom: { deep: { deeper: [1, { a: true }] } } };
    expect(norm(payload).payload).toEqual(payload);
  });
  it("source: monitoring_tool, else integration name, else Generic Alert Endpoint", () => {
    expect(norm({ monitoring_tool: "TOOL" }, { ...free, integrationName: "INTEGRATION" }).source).toBe("TOOL");
    expect(norm({}, { ...free, integrationName: "INTEGRATION" }).source).toBe("INTEGRATION");
    expect(norm({}).source).toBe("Generic Alert Endpoint");
  });
});

describe("fingerprint", () => {
  it("known vectors", () => {
    expect(fingerprintOf("fingerprint")).toBe("b5448ce070e8ff567c4870e9fe0aeba3c0a98330");
    expect(fingerprintOf("testing")).toBe("dc724af18fbdd4e59189f5fe768a5f8311527050");
    expect(fingerprintOf(["a", "b"])).toBe("da23614e02469a0d7c7bd1bdab5c9c474b1904dc");
    expect(fingerprintOf({ title: "Test alert title" })).toBe("93cefbbc7c4b07386b06306391bbbcbccc62a4e3");
  });
  it("scalars by their text, arrays flattened and joined", () => {
    expect(fingerprintOf(111)).toBe(sha1Hex("111"));
    expect(fingerprintOf(true)).toBe(sha1Hex("true"));
    expect(fingerprintOf([1, "fingerprint", ["given"]])).toBe(sha1Hex("1fingerprintgiven"));
  });
  it("objects are key-order independent, nested keys flattened", () => {
    expect(fingerprintOf({ a: 1, b: { c: 2 } })).toBe(fingerprintOf({ b: { c: 2 }, a: 1 }));
    expect(canonicalObject({ b: { c: "x" }, a: 1 })).toBe('[["a", 1], ["b.c", "x"]]');
  });
  it("labels (every value a string) give the text and hash they always gave", () => {
    // Computed by the general way before labels had a way of their own (integer-like keys, which
    // objects list first, and escapes included).
    const labels = { "9": "nine", "10": "ten", b: "", a: 'ä"\\\n', "a.b": "dot", Z: "upper", é: "\u2028" };
    expect(canonicalObject(labels)).toBe(
      '[["10", "ten"], ["9", "nine"], ["Z", "upper"], ["a", "ä\\"\\\\\\n"], ["a.b", "dot"], ["b", ""], ["é", "\u2028"]]',
    );
    expect(fingerprintOf(labels)).toBe("116cf07492d03914050d07fb72ae049dacd9b053");
    const alert = { alertname: "HighCPU", instance: "web-1:9100", severity: "critical" };
    expect(fingerprintOf(alert)).toBe("89f9012a3c37261d9ec326e8e61d158f9cb7aba6");
    expect(fingerprintOf({ job: "node", __name__: "up", "😀": "emoji" })).toBe("1b54b029cfc19b93cece6db1e165ab8d9cf01f78");
    expect(canonicalObject({})).toBe("[]");
  });
  it("blank fingerprint values give none", () => {
    expect(fingerprintOf("")).toBeUndefined();
    expect(fingerprintOf([])).toBeUndefined();
    expect(fingerprintOf(null)).toBeUndefined();
  });
  it("Free: only an explicit fingerprint field", () => {
    expect(norm({ fingerprint: "fingerprint" }).fingerprint).toBe("b5448ce070e8ff567c4870e9fe0aeba3c0a98330");
    expect(norm({ title: "same" }).fingerprint).toBeUndefined();
  });
  it("Premium: the payload without start_time, end_time and hosts", () => {
    const a = norm({ "keep-this": "attribute", hosts: "remove me", start_time: "remove me" }, premium);
    expect(a.fingerprint).toBe(payloadFingerprint({ "keep-this": "attribute" }));
    expect(a.fingerprint).toBe(fingerprintOf({ "keep-this": "attribute" }));
    const firing = norm({ title: "A", hosts: "h1", start_time: "2026-11-20T09:00:00Z" }, premium);
    const recovery = norm({ title: "A", hosts: "h2", end_time: "2026-11-20T10:00:00Z" }, premium);
    expect(recovery.fingerprint).toBe(firing.fingerprint);
    expect(norm({ title: "B" }, premium).fingerprint).not.toBe(firing.fingerprint);
  });
  it("Premium: none when nothing non-blank is left", () => {
    expect(norm({ start_time: "x", hosts: "y", end_time: "z", title: " " }, premium).fingerprint).toBeUndefined();
  });
  it("Premium: an explicit fingerprint wins", () => {
    expect(norm({ fingerprint: ["a", "b"], title: "x" }, premium).fingerprint).toBe("da23614e02469a0d7c7bd1bdab5c9c474b1904dc");
  });
});

describe("custom mapping", () => {
  const payload = {
    title: "default title",
    description: "default description",
    alert: {
      name: "mapped title",
      desc: "",
      start_time: "2026-11-20T08:00:00Z",
      end_time: "2026-11-20T09:00:00Z",
      severity: "high",
      hosts: ["mapped-host"],
      fingerprint: "mapped fingerprint",
      tool: "mapped tool",
      env: "mapped-env",
    },
  };
  const mapping = {
    title: { path: ["alert", "name"], type: "string" },
    description: { path: ["alert", "desc"], type: "string" },
    start_time: { path: ["alert", "start_time"], type: "datetime" },
    end_time: { path: ["alert", "end_time"], type: "datetime" },
    severity: { path: ["alert", "severity"], type: "string" },
    hosts: { path: ["alert", "hosts"], type: "array" },
    fingerprint: { path: ["alert", "fingerprint"], type: "string" },
    monitoring_tool: { path: ["alert", "tool"], type: "string" },
    gitlab_environment_name: { path: ["alert", "env"], type: "string" },
  };
  it("applies on Premium: mapped values, blank mapped value → default key", () => {
    const a = norm(payload, { ...premium, mapping });
    expect(a.title).toBe("mapped title");
    expect(a.description).toBe("default description");
    expect(a.startedAt).toBe("2026-11-20T08:00:00.000Z");
    expect(a.endedAt).toBe("2026-11-20T09:00:00.000Z");
    expect(a.severity).toBe("high");
    expect(a.hosts).toEqual(["mapped-host"]);
    expect(a.fingerprint).toBe(sha1Hex("mapped fingerprint"));
    expect(a.source).toBe("mapped tool");
    expect(a.environmentName).toBe("mapped-env");
  });
  it("missing mapped value and no default key → default value", () => {
    const a = norm({ alert: {} }, { ...premium, mapping });
    expect(a.title).toBe("New: Alert");
    expect(a.severity).toBe("critical");
  });
  it("is ignored on Free and when empty", () => {
    expect(norm(payload, { ...free, mapping }).title).toBe("default title");
    expect(norm(payload, { ...premium, mapping: {} }).title).toBe("default title");
  });
});

describe("Alertmanager payloads", () => {
  const base = {
    version: "4",
    groupKey: "g",
    status: "firing",
    receiver: "r",
    groupLabels: {},
    commonLabels: {},
    commonAnnotations: {},
    externalURL: "http://am",
  };
  it("reads each alert in order", () => {
    const alerts = normalizeAlertmanager(
      {
        ...base,
        alerts: [
          {
            status: "firing",
            labels: { alertname: "HighCPU", severity: "warning", instance: "h1" },
            annotations: { summary: "CPU high", description: "d" },
            startsAt: "2026-11-21T09:00:00Z",
            endsAt: "0001-01-01T00:00:00Z",
          },
          {
            status: "resolved",
            labels: { alertname: "Disk" },
            annotations: {},
            startsAt: "2026-11-21T08:00:00Z",
            endsAt: "2026-11-21T09:30:00Z",
          },
        ],
      },
      free,
    );
    expect(alerts).toHaveLength(2);
    expect(alerts[0]).toMatchObject({
      title: "CPU high",
      severity: "low",
      hosts: ["h1"],
      description: "d",
      source: "Prometheus",
    });
    expect(alerts[0]?.endedAt).toBeUndefined();
    expect(alerts[0]?.fingerprint).toBe(fingerprintOf({ alertname: "HighCPU", instance: "h1", severity: "warning" }));
    expect(alerts[1]).toMatchObject({ title: "Disk", endedAt: "2026-11-21T09:30:00.000Z" });
  });
  it("rejects other shapes", () => {
    expect(() => normalizeAlertmanager({ title: "x" }, free)).toThrowError(/Alertmanager/);
    expect(() => normalizeAlertmanager({ ...base, version: "3", alerts: [] }, free)).toThrowError();
  });
});
