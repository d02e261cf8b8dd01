import { describe, expect, it } from "vitest";
import type { CompiledSilence } from "./matching.js";
import { compileAnchored } from "./regex.js";
import { buildRegexChunks, literalPrefix } from "./regex-chunks.js";

describe("literalPrefix", () => {
  it("reads the literal text every anchored match starts with", () => {
    expect(literalPrefix("Maint12.*")).toBe("Maint12");
    expect(literalPrefix("storm .*00")).toBe("storm ");
    expect(literalPrefix("web-1")).toBe("web-1");
    expect(literalPrefix("ab+c")).toBe("ab");
    // The character before an operator that may repeat it zero times is not certain.
    expect(literalPrefix("abc?d")).toBe("ab");
    expect(literalPrefix("abc*")).toBe("ab");
    expect(literalPrefix("abc{0,2}")).toBe("ab");
    expect(literalPrefix("ab😀?c")).toBe("ab");
    // No certain prefix: alternations anywhere, classes, escapes, groups and flags first.
    for (const p of ["critical|high", "Maint(a|b)", "[a-z]+", "\\d+", "(?i)maint", ".*", "a?"]) expect(literalPrefix(p)).toBe("");
  });
});

describe("regex chunks", () => {
  const silence = (id: string) => ({ silence: { id } }) as unknown as CompiledSilence;
  const patterns = ["Maint1.*", "Maint2[0-9]", "db-(a|b)", "storm .*00", "web-\\d+", "x?y", "(?i)CASE.*", "Mai"];
  const values = [
    "Maint1",
    "Maint17",
    "Maint29",
    "Maint2x",
    "db-a",
    "db-c",
    "storm a-100",
    "storm a-101",
    "web-12",
    "web-",
    "y",
    "xy",
    "case",
    "CASEY",
    "Mai",
    "Main",
    "",
    "zzz",
  ];

  it("lets through exactly the values some pattern of the chunk matches, with or without prefixes", () => {
    for (const set of [patterns, patterns.filter((p) => p.startsWith("M") || p.startsWith("s"))]) {
      const chunks = buildRegexChunks(set.map((pattern, i) => ({ name: "alertname", pattern, silence: silence(`s${i}`) })));
      for (const value of values) {
        const expected = set.some((p) => compileAnchored(p)?.(value));
        expect(
          chunks.some((c) => c.mayMatch(value)),
          `${value} against ${set.join(" ")}`,
        ).toBe(expected);
      }
    }
  });
});
