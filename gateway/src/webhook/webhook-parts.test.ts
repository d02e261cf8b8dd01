import { jsonDepth } from "@tocsin/core";
import { describe, expect, it } from "vitest";
import { isJsonContentType, MAX_DEPTH, parseJsonObject } from "./body.js";
import { extractToken } from "./credential.js";
import { matchWebhookPath } from "./match.js";
import { idempotencyKeyOf, preferWaitMs } from "./respond.js";

describe("webhook URL matching", () => {
  it("matches the three URL shapes, nested paths, with or without .json", () => {
    expect(matchWebhookPath("/g/p/alerts/notify/datadog/abcDEF0123456789.json")).toEqual({
      fullPath: "g/p",
      kind: "http",
      identifier: "abcdef0123456789",
      valid: true,
    });
    expect(matchWebhookPath("/g/sub/deeper/p/alerts/notify/x/abc")).toMatchObject({
      fullPath: "g/sub/deeper/p",
      kind: "http",
      identifier: "abc",
    });
    expect(matchWebhookPath("/g/p/alerts/notify.json")).toMatchObject({ fullPath: "g/p", kind: "http_legacy" });
    expect(matchWebhookPath("/g/p/alerts/notify")).toMatchObject({ fullPath: "g/p", kind: "http_legacy" });
    expect(matchWebhookPath("/g/p/prometheus/alerts/notify.json")).toMatchObject({ fullPath: "g/p", kind: "prometheus" });
    // A project called `prometheus` in group `g`: its legacy URL.
    expect(matchWebhookPath("/g/prometheus/alerts/notify")).toMatchObject({ fullPath: "g/prometheus", kind: "http_legacy" });
  });

  it("flags identifiers outside [A-Za-z0-9]+ and refuses other paths", () => {
    expect(matchWebhookPath("/g/p/alerts/notify/x/abc-def.json")).toMatchObject({ valid: false });
    expect(matchWebhookPath("/g/p/alerts/notify/x/abc.xml")).toMatchObject({ valid: false });
    expect(matchWebhookPath("/p/alerts/notify.json")).toBeNull();
    expect(matchWebhookPath("/g/p/alerts/notify/x")).toBeNull();
    expect(matchWebhookPath("/g/p/alerts/notifyx")).toBeNull();
    expect(matchWebhookPath("/g/p/alerts/notify/a/b/c")).toBeNull();
    expect(matchWebhookPath("/api/v4/projects")).toBeNull();
    expect(matchWebhookPath(`/${"a/".repeat(2000)}alerts/notify`)).toBeNull();
  });
});

describe("webhook credential", () => {
  const basic = (s: string) => `Basic ${Buffer.from(s).toString("base64")}`;
  it("reads Bearer and Basic (any user, key as password)", () => {
    expect(extractToken("Bearer abc123")).toBe("abc123");
    expect(extractToken("bearer   abc123 ")).toBe("abc123");
    expect(extractToken(basic("anyone:key:with:colons"))).toBe("key:with:colons");
    expect(extractToken(basic(":key"))).toBe("key");
  });
  it("rejects everything else", () => {
    for (const h of [
      undefined,
      "",
      "abc",
      "Token abc",
      "Bearer",
      "Bearer a b",
      basic("nopassword"),
      basic("user:"),
      "Basic !!!",
      `Bearer ${"a".repeat(5000)}`,
    ]) {
      expect(extractToken(h)).toBeUndefined();
    }
  });
});

describe("webhook body checks", () => {
  it("accepts JSON content types only", () => {
    expect(isJsonContentType("application/json")).toBe(true);
    expect(isJsonContentType("Application/JSON; charset=utf-8")).toBe(true);
    expect(isJsonContentType("application/vnd.api+json")).toBe(true);
    for (const t of [undefined, "", "text/plain", "application/x-www-form-urlencoded", "application/jsonx"])
      expect(isJsonContentType(t)).toBe(false);
  });

  it("measures depth without recursion, ignoring brackets in strings", () => {
    const nested = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    expect(jsonDepth(nested(100), MAX_DEPTH) > MAX_DEPTH).toBe(false);
    expect(jsonDepth(nested(101), MAX_DEPTH) > MAX_DEPTH).toBe(true);
    expect(jsonDepth(`{"a":"${"[".repeat(500)}\\"["}`, MAX_DEPTH) > MAX_DEPTH).toBe(false);
    expect(jsonDepth("[".repeat(1_000_000), MAX_DEPTH) > MAX_DEPTH).toBe(true);
  });

  it("ends a string at the first quote not escaped, however many backslashes come before it", () => {
    // An even run of backslashes escapes itself, so the quote after it ends the string; an odd run escapes the quote.
    expect(jsonDepth(String.raw`{"a\\":[[1]]}`)).toBe(3);
    expect(jsonDepth(String.raw`{"a\"[[[":1}`)).toBe(1);
    expect(jsonDepth(String.raw`["\\\\\\",[["x"]]]`)).toBe(3);
    expect(jsonDepth(String.raw`["\\\",[["x"]]]`)).toBe(1);
    expect(jsonDepth('[[["unterminated')).toBe(3);
    expect(jsonDepth("")).toBe(0);
    const sample = { a: ['q"[', { b: "\\", c: [{ d: 'x\\"y]]' }] }] };
    expect(jsonDepth(JSON.stringify(sample))).toBe(5);
  });

  it("says what is wrong with a body", () => {
    const msg = (s: string | Buffer) => {
      const r = parseJsonObject(Buffer.isBuffer(s) ? s : Buffer.from(s));
      return r.ok ? "ok" : r.message;
    };
    expect(msg('{"title":"x"}')).toBe("ok");
    expect(msg("")).toMatch(/empty/);
    expect(msg("{")).toMatch(/not valid JSON/);
    expect(msg("[1]")).toMatch(/must be an object/);
    expect(msg("42")).toMatch(/must be an object/);
    expect(msg("null")).toMatch(/must be an object/);
    expect(msg(Buffer.from([0xff, 0xfe, 0x00]))).toMatch(/UTF-8/);
    expect(msg(`{"a":${"[".repeat(101)}${"]".repeat(101)}}`)).toMatch(/deeper than 100/);
  });
});

describe("webhook headers", () => {
  it("reads Prefer: wait, capped at 10 s", () => {
    expect(preferWaitMs(undefined)).toBe(0);
    expect(preferWaitMs("wait")).toBe(10_000);
    expect(preferWaitMs("wait=3")).toBe(3_000);
    expect(preferWaitMs("respond-async, wait=60")).toBe(10_000);
    expect(preferWaitMs("return=minimal")).toBe(0);
  });
  it("checks Idempotency-Key", () => {
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
    expect(idempotencyKeyOf(" abc-123 ")).toBe("abc-123");
    expect(idempotencyKeyOf("has space")).toBeNull();
    expect(idempotencyKeyOf("x".repeat(256))).toBeNull();
  });
});
