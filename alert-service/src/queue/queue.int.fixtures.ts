import { silentLogger } from "@tocsin/core";
import { Redis } from "ioredis";
import { BullmqJobQueue } from "./bullmq-queue.js";

/** What the queue's integration tests share: one silent logger, and the BullMQ cases' Redis helpers. */
export const logger = silentLogger();

/**
 * The BullMQ cases' helpers on the suite's Redis, `inject("redisUrl")` of the test file (passed in:
 * alert-service's build compiles this file and does not see the suite's provided values), which is
 * empty without Redis: the cases are then skipped, and said so.
 */
export function redisHelpers(redisUrl: string) {
  if (!redisUrl) console.warn("[alert queue] Redis unavailable: the BullMQ contract run is SKIPPED");
  /** Removes a test's keys (its own prefix) from the shared Redis. */
  async function dropKeys(prefix: string): Promise<void> {
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
  /** A BullMQ queue and a Redis connection on a prefix of the test's own, both closed and its keys removed after `test`. */
  async function onOwnPrefix(test: (t: { prefix: string; q: BullmqJobQueue; redis: Redis }) => Promise<void>): Promise<void> {
    const prefix = `tocsin-test-${Math.random().toString(36).slice(2, 10)}`;
    const q = new BullmqJobQueue({ redisUrl, logger, prefix });
    const redis = new Redis(redisUrl);
    try {
      await test({ prefix, q, redis });
    } finally {
      await q.close();
      redis.disconnect();
      await dropKeys(prefix);
    }
  }
  return { dropKeys, onOwnPrefix };
}
