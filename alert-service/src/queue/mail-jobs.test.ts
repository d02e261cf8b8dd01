import { describe, expect, it } from "vitest";
import { DEFAULT_MAIL_RETRY, mailRetryPolicy } from "./mail-jobs.js";

describe("mail retry policy", () => {
  it("by default retries with exponential backoff, at most 1 h apart, for at least 24 h", () => {
    const policy = mailRetryPolicy(DEFAULT_MAIL_RETRY);
    const delays = Array.from({ length: policy.maxAttempts - 1 }, (_, i) => policy.backoff(i + 1));
    expect(delays.slice(0, 4)).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(Math.max(...delays)).toBe(3_600_000);
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3_600_000);
  });

  it("is shortened by configuration (tests)", () => {
    const policy = mailRetryPolicy({ initialMs: 100, maxMs: 500, forMs: 3_600_000 });
    expect([1, 2, 3, 4].map(policy.backoff)).toEqual([100, 200, 400, 500]);
    expect(policy.maxAttempts).toBeGreaterThan(7000);
  });
});
