import type { Logger } from "@tocsin/core";
import type { Redis } from "ioredis";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { IntakeLimiter, RateLimitState } from "../domain/alerts/intake-limit.js";

export interface FlexibleLimiterOptions {
  /** Shared by every replica when set; this process's memory otherwise. */
  redis?: Redis;
  /** Key prefix in Redis. */
  prefix: string;
  logger: Logger;
}

/** The burst window: one tenth of a minute holds one tenth of the minute's budget. */
const WINDOW_SECONDS = 6;

/**
 * IntakeLimiter on rate-limiter-flexible: per integration, a window of 6 s holding one tenth of
 * the per-minute budget (a token bucket refilled every 6 s: the average is the budget, a burst
 * at most one tenth of it), and a second one of a fifth of that for recoveries. With Redis, an
 * outage falls back to an in-memory limiter per process (the intake keeps working).
 */
export function createFlexibleLimiter(options: FlexibleLimiterOptions): IntakeLimiter {
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterFor = (kind: "main" | "recovery", points: number) => {
    const name = `${kind}:${points}`;
    let limiter = limiters.get(name);
    if (!limiter) {
      const base = { keyPrefix: `${options.prefix}:webhook:${name}`, points, duration: WINDOW_SECONDS };
      const memory = new RateLimiterMemory(base);
      limiter = options.redis ? new RateLimiterRedis({ ...base, storeClient: options.redis, insuranceLimiter: memory }) : memory;
      limiters.set(name, limiter);
    }
    return limiter;
  };
  const attempt = async (limiter: RateLimiterAbstract, key: string) => {
    try {
      return { ok: true, res: await limiter.consume(key) };
    } catch (err) {
      if (err instanceof RateLimiterRes) return { ok: false, res: err };
      options.logger.warn({ err }, "rate limiter failed; the request goes through");
      return { ok: true, res: undefined };
    }
  };
  return {
    async take(integrationId, limitPerMinute, recovery) {
      const burst = Math.max(1, Math.round(limitPerMinute / 10));
      const key = String(integrationId);
      const state = (ok: boolean, res: RateLimiterRes | undefined): RateLimitState => ({
        limitPerMinute,
        remaining: Math.max(0, res?.remainingPoints ?? burst),
        resetSeconds: Math.max(1, Math.ceil((res?.msBeforeNext ?? WINDOW_SECONDS * 1000) / 1000)),
        throttled: !ok,
        recovery,
        burst,
        windowSeconds: WINDOW_SECONDS,
      });
      if (recovery) {
        const reserve = await attempt(limiterFor("recovery", Math.max(1, Math.round(burst / 5))), key);
        if (reserve.ok) return state(true, reserve.res);
      }
      const main = await attempt(limiterFor("main", burst), key);
      return state(main.ok, main.res);
    },
  };
}
