import { FakeClock, rejectionReason } from "@tocsin/testing";
import { describe, expect, it } from "vitest";
import { createSilenceIndexCache } from "./active-index.js";
import { parseMatcherText, silenceFilterHolds } from "./filter.js";
import type { Matcher, Silence } from "./model.js";
import { type SilenceInput, validateSilence } from "./validate.js";

const now = new Date("2026-11-21T10:00:00.000Z");
const inOneHour = new Date("2026-11-21T11:00:00.000Z");
const eq = (name: string, value: string): Matcher => ({ name, value, isRegex: false, isEqual: true });
const input = (over: Partial<SilenceInput> = {}): SilenceInput => ({
  matchers: [eq("alertname", "HighCPU")],
  endsAt: inOneHour,
  createdBy: "ops",
  comment: "maintenance",
  ...over,
});
const refusal = (i: SilenceInput) => {
  try {
    validateSilence(i, now);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
};

describe("validateSilence", () => {
  it("accepts a silence and starts it now by default", () => {
    expect(validateSilence(input(), now)).toEqual({ startsAt: now, endsAt: inOneHour });
  });

  it("refuses what Alertmanager refuses, with its wording", () => {
    expect(refusal(input({ matchers: [] }))).toBe("invalid silence: at least one matcher required");
    expect(refusal(input({ matchers: [eq("", "x")] }))).toMatch(/invalid label name/);
    expect(refusal(input({ matchers: [{ name: "a", value: "(", isRegex: true, isEqual: true }] }))).toMatch(
      /invalid regular expression/,
    );
    expect(refusal(input({ matchers: [eq("a", ""), { name: "b", value: ".*", isRegex: true, isEqual: true }] }))).toBe(
      "invalid silence: at least one matcher must not match the empty string",
    );
    expect(refusal(input({ endsAt: undefined }))).toMatch(/zero end timestamp/);
    expect(refusal(input({ startsAt: inOneHour }))).toBe("Failed to create silence: start time must be before end time");
    expect(refusal(input({ startsAt: new Date(0), endsAt: new Date(now.getTime() - 1) }))).toBe(
      "Failed to create silence: end time can't be in the past",
    );
  });

  it("holds the limits of section 13: 50 matchers, 1,000 characters", () => {
    const many = Array.from({ length: 51 }, (_, i) => eq(`l${i}`, "v"));
    expect(refusal(input({ matchers: many }))).toMatch(/at most 50 matchers/);
    expect(refusal(input({ matchers: many.slice(0, 50) }))).toBeUndefined();
    expect(refusal(input({ matchers: [eq("a", "v".repeat(1001))] }))).toMatch(/1000 characters/);
    expect(refusal(input({ matchers: [eq("a", "v".repeat(1000))] }))).toBeUndefined();
  });
});

describe("filters (GET /silences?filter=)", () => {
  const s = { matchers: [eq("alertname", "HighCPU"), { ...eq("job", "db.*"), isRegex: true }] } as Silence;

  it("parses amtool's matcher text", () => {
    expect(parseMatcherText('alertname="HighCPU"')).toEqual(eq("alertname", "HighCPU"));
    expect(parseMatcherText("job=~db.*")).toEqual({ name: "job", value: "db.*", isRegex: true, isEqual: true });
    expect(parseMatcherText('{team!~"a\\"b"}')).toEqual({ name: "team", value: 'a"b', isRegex: true, isEqual: false });
    expect(() => parseMatcherText("nonsense")).toThrow(/bad matcher format/);
    expect(() => parseMatcherText('a=~"("')).toThrow(/bad matcher format/);
  });

  it("keeps silences whose matchers, read as labels, satisfy every filter", () => {
    expect(silenceFilterHolds(s, [parseMatcherText("alertname=HighCPU")])).toBe(true);
    expect(silenceFilterHolds(s, [parseMatcherText("alertname=~High.*"), parseMatcherText('job="db.*"')])).toBe(true);
    expect(silenceFilterHolds(s, [parseMatcherText("alertname=Other")])).toBe(false);
    expect(silenceFilterHolds(s, [parseMatcherText("team=x")])).toBe(false);
  });
});

describe("the index cache", () => {
  it("loads once, reloads when invalidated or too old, and retries a failed load", async () => {
    const clock = new FakeClock(now);
    let loads = 0;
    let fail = false;
    const cache = createSilenceIndexCache({
      clock,
      maxAgeMs: 1000,
      async load() {
        loads++;
        if (fail) throw new Error("store down");
        return [];
      },
    });
    await cache.get(1);
    await cache.get(1);
    expect(loads).toBe(1);
    cache.invalidate(1);
    await cache.get(1);
    expect(loads).toBe(2);
    clock.advance(1000);
    fail = true;
    expect(await rejectionReason(cache.get(1))).toMatch(/store down/);
    fail = false;
    expect((await cache.get(1)).size).toBe(0);
    expect(loads).toBe(4);
  });

  it("reuses the built index when a reload finds the same silences (same ids and updatedAt)", async () => {
    const clock = new FakeClock(now);
    const silence = (updatedAt: Date): Silence => ({
      id: "s1",
      projectId: 1,
      matchers: [eq("alertname", "HighCPU")],
      startsAt: now,
      endsAt: inOneHour,
      createdBy: "",
      comment: "",
      updatedAt,
    });
    let current = [silence(now)];
    const cache = createSilenceIndexCache({ clock, maxAgeMs: 1000, load: async () => current });
    const first = await cache.get(1);
    clock.advance(1000);
    expect(await cache.get(1)).toBe(first);
    current = [silence(new Date(now.getTime() + 5))];
    cache.invalidate(1);
    expect(await cache.get(1)).not.toBe(first);
  });
});
