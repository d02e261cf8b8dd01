import { prng } from "@tocsin/testing";
import { describe, expect, it } from "vitest";
import { isoMs, parseRfc3339, parseTime } from "./times.js";

/**
 * `parseTime` reads the RFC 3339 shape by position and every other shape through its general
 * expression. A leading space keeps a text off the positional way (the general way trims it), so
 * `parseTime(" " + text)` is the general way's answer for `text`: both must always agree.
 */
const general = (text: string) => parseTime(` ${text}`)?.getTime();
const fast = (text: string) => parseTime(text)?.getTime();

describe("parseTime's RFC 3339 way", () => {
  it("answers as the general way on the shapes monitors send", () => {
    for (const text of [
      "2026-11-20T09:00:00Z",
      "2026-11-20T09:00:00.123+02:00",
      "2026-11-20T09:00:00.123456789Z",
      "2026-11-20T09:00:00.1-05:30",
      "0001-01-01T00:00:00Z",
      "0099-03-01T00:00:00Z",
      "2024-02-29T23:59:60Z",
      "9999-12-31T23:59:59.999+14:00",
    ]) {
      expect(fast(text), text).toBe(general(text));
      // Read by position, not left to the general way.
      expect(parseRfc3339(text)?.getTime(), text).toBe(general(text));
    }
    expect(parseTime("2026-11-20T09:00:00.123+02:00")?.toISOString()).toBe("2026-11-20T07:00:00.123Z");
    expect(parseTime("0001-01-01T00:00:00Z")?.getUTCFullYear()).toBe(1);
  });

  it("refuses what the general way refuses", () => {
    for (const text of [
      "2023-02-29T00:00:00Z",
      "2026-04-31T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-00-01T00:00:00Z",
      "2026-11-00T00:00:00Z",
      "2026-11-20T24:00:00Z",
      "2026-11-20T09:60:00Z",
      "2026-11-20T09:00:61Z",
      "2026-11-20T09:00:00.1234567890Z",
      "2026-11-20T09:00:00.Z",
      "2026-11-20T09:00:00+0200x",
      "2026-1a-20T09:00:00Z",
      "2026-11-20T09:00:00+0a:00",
    ]) {
      expect(fast(text), text).toBeUndefined();
      expect(general(text), text).toBeUndefined();
      expect(parseRfc3339(text), text).toBeUndefined();
    }
  });

  it("agrees with the general way on 20,000 generated texts near the shape", () => {
    const next = prng(25);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)] as T;
    const num = (max: number, width: number) => String(Math.floor(next() * (max + 1))).padStart(width, "0");
    const zones = ["Z", "z", "+00:00", "-00:00", "+02:00", "-11:30", "+14:00", "+0200", "+02", " UTC", "", "Zx", "+2:00"];
    const seps = ["T", "T", "T", "t", " "];
    for (let i = 0; i < 20_000; i++) {
      const fraction = pick([
        "",
        "",
        ".",
        `.${num(9, 1)}`,
        `.${num(999, 3)}`,
        `.${num(999_999_999, 9)}`,
        `.${num(9_999_999_999, 10)}`,
      ]);
      const text =
        `${num(9999, 4)}-${num(13, 2)}-${num(32, 2)}${pick(seps)}` +
        `${num(25, 2)}:${num(61, 2)}:${num(61, 2)}${fraction}${pick(zones)}`;
      expect(fast(text), text).toBe(general(text));
      const positional = parseRfc3339(text)?.getTime();
      if (positional !== undefined) expect(positional, text).toBe(general(text));
    }
  });
});

describe("isoMs", () => {
  it("reads what toISOString writes as Date.parse does", () => {
    const next = prng(26);
    for (let i = 0; i < 20_000; i++) {
      // Any millisecond from 1963 to 2093.
      const ms = Math.floor((next() - 0.05) * 4_102_444_800_000);
      const text = new Date(ms).toISOString();
      expect(isoMs(text), text).toBe(Date.parse(text));
    }
    for (const ms of [-62_198_755_200_000, 253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15]) {
      // Years 0 and 9999, then past them: ±YYYYYY, which Date.parse reads.
      const text = new Date(ms).toISOString();
      expect(isoMs(text), text).toBe(Date.parse(text));
    }
  });

  it("leaves other shapes to Date.parse", () => {
    for (const text of ["2026-12-03T10:00:00+02:00", "2026-12-03T10:00:00Z", "2026-12-03", "not a time", ""])
      expect(isoMs(text), text).toEqual(Date.parse(text));
  });
});
