import { AppError } from "@tocsin/core";
import type { RateLimiterRes } from "rate-limiter-flexible";
import type { LimiterBackend } from "./limiter-backend.js";

/** Failed authentications one client address may make per window before it is refused. */
const MAX_FAILED_AUTHENTICATIONS = 100;
const FAILED_AUTHENTICATION_WINDOW_SECONDS = 60;

/** PRODUCT.md section 10: more than 100 failures in a minute from one address → 429 for a minute. */
export interface CredentialThrottle {
  /** Throws RESOURCE_EXHAUSTED (429 with Retry-After) while `address` is blocked. */
  check(address: string): Promise<void>;
  /** Counts one failed authentication (webhook key, token or session) from `address`. */
  failed(address: string): Promise<void>;
}

export function createCredentialThrottle(backend: LimiterBackend): CredentialThrottle {
  const limiter = backend.create({
    name: "auth-failures",
    points: MAX_FAILED_AUTHENTICATIONS,
    durationSeconds: FAILED_AUTHENTICATION_WINDOW_SECONDS,
    blockSeconds: FAILED_AUTHENTICATION_WINDOW_SECONDS,
  });
  // Concurrent checks of one address share one read of its counter (with REDIS_URL, one round
  // trip instead of one per request of a storm from one monitor). A failure forgets the read in
  // flight, so that a request that comes after a failure reads the counter after it.
  const reads = new Map<string, Promise<RateLimiterRes | null>>();
  const read = (address: string) => {
    let pending = reads.get(address);
    if (!pending) {
      pending = limiter
        .get(address)
        .catch(() => null) // the counter store down: let it through
        .finally(() => {
          if (reads.get(address) === pending) reads.delete(address);
        });
      reads.set(address, pending);
    }
    return pending;
  };
  return {
    async check(address) {
      const state = await read(address);
      if (state && state.consumedPoints > MAX_FAILED_AUTHENTICATIONS) throw tooManyFailures(state.msBeforeNext);
    },
    async failed(address) {
      reads.delete(address);
      await limiter.consume(address).catch(() => undefined); // over the limit: now blocked
    },
  };
}

function tooManyFailures(msBeforeNext: number): AppError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError(
    "RESOURCE_EXHAUSTED",
    "TOO_MANY_FAILED_AUTHENTICATIONS",
    `429 Too Many Requests: more than ${MAX_FAILED_AUTHENTICATIONS} failed authentications from this address within a minute; try again in ${seconds} seconds`,
    { retryAfterSeconds: seconds },
  );
}
