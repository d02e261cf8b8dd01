import { Redis } from "ioredis";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";

interface LimiterOptions {
  /** Distinguishes this limiter's keys from every other's. */
  name: string;
  points: number;
  durationSeconds: number;
  /** Once over the limit, the key stays blocked this long. */
  blockSeconds?: number;
}

/** Where rate-limit counters live: Redis, shared by every gateway, or this process's memory. */
export interface LimiterBackend {
  readonly shared: boolean;
  create(options: LimiterOptions): RateLimiterAbstract;
  close(): void;
}

/**
 * rate-limiter-flexible limiters on Redis when `redisUrl` is set (one connection, no offline
 * queue: a Redis outage falls back at once to an in-memory insurance limiter per process, so the
 * intake keeps working), in memory otherwise. Keys are `<prefix>:<name>:<key>`.
 */
export function createLimiterBackend(redisUrl: string | undefined, prefix: string): LimiterBackend {
  if (!redisUrl) {
    return {
      shared: false,
      create: (o) => new RateLimiterMemory(memoryOptions(o, prefix)),
      close() {},
    };
  }
  const client = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
  client.on("error", () => undefined); // reconnects by itself; the insurance limiter covers the gap
  return {
    shared: true,
    create: (o) =>
      new RateLimiterRedis({
        ...memoryOptions(o, prefix),
        storeClient: client,
        insuranceLimiter: new RateLimiterMemory(memoryOptions(o, prefix)),
      }),
    close: () => client.disconnect(),
  };
}

function memoryOptions(o: LimiterOptions, prefix: string) {
  return { keyPrefix: `${prefix}:${o.name}`, points: o.points, duration: o.durationSeconds, blockDuration: o.blockSeconds ?? 0 };
}
