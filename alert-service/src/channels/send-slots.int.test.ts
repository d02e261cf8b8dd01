import { randomBytes } from "node:crypto";
import { silentLogger } from "@tocsin/core";
import { Redis } from "ioredis";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createLocalSendSlots } from "./local-send-slots.js";
import { createRedisSendSlots } from "./redis-send-slots.js";

const redisUrl = inject("redisUrl");
if (!redisUrl) console.warn("[channels] Redis unavailable: the Redis send-slot cases are SKIPPED");

describe("send slots", () => {
  it("in memory: each reservation a destination's interval after the last, destinations apart", async () => {
    let now = 10_000;
    const slots = createLocalSendSlots(() => now);
    expect(await slots.reserve(1, 1000)).toBe(0);
    expect(await slots.reserve(1, 1000)).toBe(1000);
    expect(await slots.reserve(2, 1000)).toBe(0);
    now += 400;
    expect(await slots.reserve(1, 1000)).toBe(1600);
    now += 5000;
    expect(await slots.reserve(1, 1000)).toBe(0);
  });

  describe.skipIf(!redisUrl)("in Redis", () => {
    const clients: Redis[] = [];
    afterEach(() => {
      for (const c of clients.splice(0)) c.disconnect();
    });
    const replica = (prefix: string) => {
      const redis = new Redis(redisUrl as string, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
      clients.push(redis);
      return createRedisSendSlots(redis, prefix, silentLogger());
    };

    it("spaces a destination's sends across replicas, on Redis's clock", async () => {
      const prefix = `tocsin-test-slots-${randomBytes(4).toString("hex")}`;
      const [a, b] = [replica(prefix), replica(prefix)];
      const key = `${prefix}:channel-slot:7`;
      const nextFree = async () => Number(await (clients[0] as Redis).get(key));
      expect(await a.reserve(7, 1000)).toBe(0);
      const first = await nextFree();
      // The other replica's next send of destination 7 waits for the slot a second after the first
      // (unless this machine stalled for a whole second between the two calls).
      const second = await b.reserve(7, 1000);
      expect(second).toBeGreaterThan(0);
      expect(second).toBeLessThanOrEqual(1000);
      expect(await nextFree()).toBe(first + 1000);
      const third = await a.reserve(7, 1000);
      expect(third).toBeGreaterThan(second);
      expect(await nextFree()).toBe(first + 2000);
      expect(await b.reserve(8, 1000)).toBe(0);
      // The key expires once its slots are past: nothing is left behind in Redis.
      const ttl = await (clients[0] as Redis).pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(3000);
    });

    it("falls back to this process's own slots while Redis cannot answer", async () => {
      const down = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
      clients.push(down);
      const slots = createRedisSendSlots(down, "unused", silentLogger());
      expect(await slots.reserve(1, 1000)).toBe(0);
      const wait = await slots.reserve(1, 1000);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(1000);
    });
  });
});
