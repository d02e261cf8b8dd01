import { sha1Hex } from "@tocsin/core";
import { FakeClock } from "@tocsin/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createSqliteIntegrationStore } from "../../store/integrations/sqlite-integration-store.js";
import { createIntegrationDirectory } from "../integrations/directory.js";
import type { PayloadMapping } from "../types.js";
import { payloadFingerprint } from "./fingerprint.js";
import { compileMapping, dig, fingerprintPart, mappingCompilations, parseMappedTime } from "./mapping-reader.js";
import { type NormalizeOptions, normalizeGeneric } from "./normalize.js";

const receivedAt = new Date("2026-11-21T10:00:00.000Z");
const premium = (mapping: PayloadMapping | null): NormalizeOptions => ({
  tier: "premium",
  mapping,
  integrationName: "I",
  receivedAt,
});

describe("compiled mappings", () => {
  it("compiles a mapping once, however many payloads it reads", () => {
    const mapping: PayloadMapping = { title: { path: ["a", "t"], type: "string" } };
    const before = mappingCompilations();
    for (let i = 0; i < 1000; i++) normalizeGeneric({ a: { t: `T${i}` } }, premium(mapping));
    expect(mappingCompilations() - before).toBe(1);
    expect(compileMapping(mapping)).toBe(compileMapping(mapping));
  });

  it("the integration directory hands out one mapping object per integration while cached", async () => {
    const store = createSqliteIntegrationStore(new Database(":memory:"));
    const directory = createIntegrationDirectory(store, new FakeClock());
    const mapping = { title: { path: ["a"], type: "string" } };
    const http = await store.insert({
      projectId: 1,
      type: "http",
      name: "Main",
      active: true,
      payloadExample: "{}",
      mapping,
      apiUrl: "",
      rateLimitPerMinute: null,
      autoResolveMinutes: null,
      createdAt: new Date(),
    });
    const first = await directory.get(1, http.id);
    const second = await directory.get(1, http.id);
    expect(second?.mapping).toBe(first?.mapping);
  });
});

describe("dig", () => {
  const payload = { a: [{ b: "x" }], obj: { "0": "zero" }, s: "text" };
  it("follows keys of objects and indexes of arrays", () => {
    expect(dig(payload, ["a", 0, "b"])).toBe("x");
    expect(dig(payload, ["a", 1, "b"])).toBeUndefined();
  });
  it("never reads inherited properties, keys of arrays or indexes of objects", () => {
    expect(dig(payload, ["constructor"])).toBeUndefined();
    expect(dig(payload, ["__proto__"])).toBeUndefined();
    expect(dig(payload, ["a", "length"])).toBeUndefined();
    expect(dig(payload, ["obj", 0])).toBeUndefined();
    expect(dig(payload, ["s", 0])).toBeUndefined();
    expect(dig(payload, ["s", "length"])).toBeUndefined();
  });
  it("a mapping onto an inherited name reads nothing, so the default applies", () => {
    const a = normalizeGeneric({ title: "Default" }, premium({ title: { path: ["toString"], type: "string" } }));
    expect(a.title).toBe("Default");
  });
});

describe("mapped times", () => {
  it("reads ISO 8601, Ruby Time#to_s and Zabbix's dotted dates", () => {
    expect(parseMappedTime("2026-11-20T10:00:00+01:00")?.toISOString()).toBe("2026-11-20T09:00:00.000Z");
    expect(parseMappedTime("2026-11-20 10:00:00 UTC")?.toISOString()).toBe("2026-11-20T10:00:00.000Z");
    expect(parseMappedTime("2026.11.20 10:00:00")?.toISOString()).toBe("2026-11-20T10:00:00.000Z");
    expect(parseMappedTime("2026.11.20")?.toISOString()).toBe("2026-11-20T00:00:00.000Z");
  });
  it("Go's zero time, text and numbers are no time", () => {
    expect(parseMappedTime("0001-01-01T00:00:00Z")).toBeUndefined();
    expect(parseMappedTime("{EVENT.RECOVERY.DATE} {EVENT.RECOVERY.TIME}")).toBeUndefined();
    expect(parseMappedTime(1763632800000)).toBeUndefined();
  });
  it("a zero end_time (mapped or not) does not resolve", () => {
    expect(normalizeGeneric({ end_time: "0001-01-01T00:00:00Z" }, premium(null)).endedAt).toBeUndefined();
    const mapped = premium({ end_time: { path: ["x", "ends"], type: "datetime" } });
    expect(normalizeGeneric({ x: { ends: "0001-01-01T00:00:00Z" } }, mapped).endedAt).toBeUndefined();
  });
});

describe("automatic fingerprints with a mapping", () => {
  const mapping: PayloadMapping = {
    start_time: { path: ["when", "start"], type: "datetime" },
    end_time: { path: ["when", "end"], type: "datetime" },
    hosts: { path: ["where", 1], type: "string" },
  };
  it("leave out the mapped start time, end time and hosts, besides the top-level keys", () => {
    const part = fingerprintPart(
      { check: "c", when: { start: "s", end: "e", other: 1 }, where: ["a", "b"], hosts: "h", start_time: "t" },
      compileMapping(mapping),
    );
    expect(part).toEqual({ check: "c", when: { other: 1 }, where: ["a", null] });
  });
  it("group a recovery with its alert", () => {
    const firing = normalizeGeneric({ check: "c", when: { start: "2026-11-20T10:00:00Z" }, where: ["a", "b"] }, premium(mapping));
    const recovery = normalizeGeneric(
      { check: "c", when: { start: "2026-11-20T10:00:00Z", end: "2026-11-20T10:30:00Z" }, where: ["a", "z"] },
      premium(mapping),
    );
    expect(recovery.endedAt).toBe("2026-11-20T10:30:00.000Z");
    expect(recovery.fingerprint).toBe(firing.fingerprint);
    expect(firing.fingerprint).toBe(payloadFingerprint({ check: "c", when: {}, where: ["a", null] }));
  });
  it("a mapped fingerprint wins; Free ignores the mapping", () => {
    const withFp = premium({ fingerprint: { path: ["id"], type: "string" } });
    expect(normalizeGeneric({ id: "42", x: 1 }, withFp).fingerprint).toBe(sha1Hex("42"));
    expect(normalizeGeneric({ id: "42" }, { ...withFp, tier: "free" }).fingerprint).toBeUndefined();
  });
});
