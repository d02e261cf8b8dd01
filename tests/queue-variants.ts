import { Redis } from "ioredis";

/** A queue setup of a runtime test: none = the SQLite queue; else BullMQ on `url` under `prefix`. */
export type QueueVariant = { url: string; prefix: string } | undefined;

/**
 * The queues a runtime test runs over: the SQLite queue, and BullMQ under a prefix of its own when
 * the suite has Redis (`inject("redisUrl")`); without Redis the BullMQ case is skipped, and said so.
 */
export function queueVariants(label: string, redisUrl: string | undefined): Array<[string, QueueVariant]> {
  if (!redisUrl) console.warn(`[${label}] Redis unavailable: the BullMQ case is SKIPPED`);
  const prefix = `tocsin-${label.replace(/\W+/g, "-")}-${Math.random().toString(36).slice(2, 10)}`;
  return [["SQLite queue", undefined], ...(redisUrl ? [["BullMQ", { url: redisUrl, prefix }] as [string, QueueVariant]] : [])];
}

/** Removes what a BullMQ variant left in Redis. */
export async function dropQueueKeys(variant: QueueVariant): Promise<void> {
  if (!variant) return;
  const client = new Redis(variant.url);
  try {
    const keys = await client.keys(`${variant.prefix}:*`);
    if (keys.length) await client.del(...keys);
  } finally {
    client.disconnect();
  }
}
