import type { Logger } from "@tocsin/core";
import type { Redis } from "ioredis";
import type { SendSlots } from "../domain/channels/ports.js";
import { createLocalSendSlots } from "./local-send-slots.js";

/**
 * One atomic step on Redis's own clock (no replica's clock counts): the slot starts at the later
 * of now and the key's next free time, which moves on by the interval; the key expires once
 * that time has passed.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local start = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
local nextFree = start + tonumber(ARGV[1])
redis.call('SET', KEYS[1], nextFree, 'PX', nextFree - now)
return start - now`;

/**
 * Send slots in Redis (BullMQ mode): every replica's sends of a destination are spaced, not only
 * one process's. While Redis cannot answer, this process's own slots space them (and a warning).
 */
export function createRedisSendSlots(redis: Redis, prefix: string, logger: Logger): SendSlots {
  const local = createLocalSendSlots();
  return {
    async reserve(destinationId, intervalMs) {
      try {
        return Number(await redis.eval(RESERVE, 1, `${prefix}:channel-slot:${destinationId}`, intervalMs));
      } catch (err) {
        logger.warn({ err, destinationId }, "send slots in Redis failed; this process spaces the destination's messages alone");
        return local.reserve(destinationId, intervalMs);
      }
    },
  };
}
