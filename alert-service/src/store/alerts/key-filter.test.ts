import { describe, expect, it } from "vitest";
import { KeyFilter } from "./key-filter.js";

describe("KeyFilter", () => {
  it("answers yes for every key added, and for few others at its capacity", () => {
    const filter = new KeyFilter(50_000);
    const added = Array.from({ length: 50_000 }, (_, i) => `1\u0000${i.toString(16).padStart(40, "0")}`);
    for (const key of added) filter.add(key);
    expect(added.filter((key) => !filter.has(key))).toEqual([]);
    let yes = 0;
    for (let i = 0; i < 50_000; i++) if (filter.has(`2\u0000${i.toString(16).padStart(40, "0")}`)) yes++;
    expect(yes / 50_000).toBeLessThan(0.02);
    expect(filter.added).toBe(50_000);
  });

  it("answers no for every key when empty", () => {
    const filter = new KeyFilter(0);
    expect(["", "a", "1\u0000f", "é"].some((key) => filter.has(key))).toBe(false);
  });
});
