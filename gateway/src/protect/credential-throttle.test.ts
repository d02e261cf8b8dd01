import { AppError } from "@tocsin/core";
import { type RateLimiterAbstract, RateLimiterMemory } from "rate-limiter-flexible";
import { describe, expect, it } from "vitest";
import { createCredentialThrottle } from "./credential-throttle.js";
import type { LimiterBackend } from "./limiter-backend.js";

/**
 * The in-memory limiter of the real backend, with its counter reads counted; while `hold` is set,
 * a read takes its snapshot at once but answers only when the test releases it (a slow round trip).
 */
function countingBackend() {
  const counted: { reads: number; hold?: Promise<void> } = { reads: 0 };
  const backend: LimiterBackend = {
    shared: false,
    create(o): RateLimiterAbstract {
      const limiter = new RateLimiterMemory({
        points: o.points,
        duration: o.durationSeconds,
        blockDuration: o.blockSeconds ?? 0,
      });
      const get = limiter.get.bind(limiter);
      limiter.get = async (key, options) => {
        counted.reads++;
        const snapshot = await get(key, options);
        await counted.hold;
        return snapshot;
      };
      return limiter;
    },
    close() {},
  };
  return { backend, counted };
}

const refused = (p: Promise<void>) =>
  p.then(
    () => "passed",
    (err: unknown) => (err instanceof AppError ? err.reason : "other"),
  );

describe("credential throttle", () => {
  it("concurrent checks of one address share one read of its counter; other addresses read their own", async () => {
    const { backend, counted } = countingBackend();
    const throttle = createCredentialThrottle(backend);
    await Promise.all([...Array.from({ length: 50 }, () => throttle.check("10.0.0.1")), throttle.check("10.0.0.2")]);
    expect(counted.reads).toBe(2);
    // Once answered, the next check reads again.
    await throttle.check("10.0.0.1");
    expect(counted.reads).toBe(3);
  });

  it("a check after the 101st failure is refused, even while an older read is in flight", async () => {
    const { backend, counted } = countingBackend();
    const throttle = createCredentialThrottle(backend);
    for (let i = 0; i < 100; i++) await throttle.failed("10.0.0.3");
    expect(await refused(throttle.check("10.0.0.3"))).toBe("passed");
    let release = () => {};
    counted.hold = new Promise((resolve) => {
      release = resolve;
    });
    const before = throttle.check("10.0.0.3"); // its read saw 100 failures and answers late...
    await throttle.failed("10.0.0.3"); // ...while the 101st failure is counted
    const after = throttle.check("10.0.0.3");
    release();
    expect(await refused(before)).toBe("passed");
    expect(await refused(after)).toBe("TOO_MANY_FAILED_AUTHENTICATIONS");
    expect(await refused(throttle.check("10.0.0.4"))).toBe("passed");
  });
});
