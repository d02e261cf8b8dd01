import { describe, expect, it } from "vitest";
import { bucketLabel, countsText, formatDuration } from "./format";

describe("overview formats", () => {
  it("writes durations in the largest two units", () => {
    expect(formatDuration(null)).toBe("—");
    expect(formatDuration(40)).toBe("40 s");
    expect(formatDuration(2100)).toBe("35 min");
    expect(formatDuration(82_200)).toBe("22 h 50 min");
    expect(formatDuration(7200)).toBe("2 h");
    expect(formatDuration(3 * 86_400 + 4 * 3600)).toBe("3 d 4 h");
  });

  it("labels buckets in UTC and sums counts by severity", () => {
    expect(bucketLabel("2026-11-21T10:00:00.000Z", "hour")).toBe("10:00");
    expect(bucketLabel("2026-11-21T00:00:00.000Z", "day")).toBe("Nov 21");
    const counts = { critical: 2, high: 0, medium: 1, low: 0, info: 0, unknown: 0 };
    expect(countsText(counts)).toBe("2 critical, 1 medium");
    expect(countsText({ ...counts, critical: 0, medium: 0 })).toBe("none");
  });
});
