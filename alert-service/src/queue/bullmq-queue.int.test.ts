import { until } from "@tocsin/testing";
import { describe, expect, inject, it } from "vitest";
import { BullmqJobQueue } from "./bullmq-queue.js";
import { describeJobQueueContract } from "./contract.js";
import { logger, redisHelpers } from "./queue.int.fixtures.js";

const redisUrl = inject("redisUrl");
const { dropKeys, onOwnPrefix } = redisHelpers(redisUrl);
describe.skipIf(!redisUrl)("bullmq", () => {
  describeJobQueueContract("bullmq (Redis)", async () => {
    const prefix = `tocsin-test-${Math.random().toString(36).slice(2, 10)}`;
    return {
      open: async () => new BullmqJobQueue({ redisUrl, logger, prefix }),
      batches: true,
      cleanup: async () => {
        await dropKeys(prefix);
      },
    };
  });

  it("wakes a waiter on its id announced, in this version's form or an older one's, and answers with the end stored in Redis", async () => {
    await onOwnPrefix(async ({ prefix, q, redis }) => {
      const channel = `${prefix}:alert-jobs:done`;
      const stored = (id: string, n: number) =>
        redis.hset(`${prefix}:alerts-lane-5:tocsin-done`, id, JSON.stringify({ state: "completed", result: { n } }));
      const subscribed = async () => ((await redis.pubsub("NUMSUB", channel)) as [string, number])[1] === 1;
      // The waiter's first look at the done hash made before the end is stored, so that only an
      // announcement can make it look again: once subscribed, a waitFor sends that look within the
      // turn; `counts` reads on the same connection after it, so its answer comes after the look's.
      const waiting = async (id: string) => {
        const wait = q.waitFor(id, 5, 10_000);
        await new Promise((resolve) => setImmediate(resolve));
        await q.counts();
        return { wait }; // not the promise itself: an async function's answer would wait for it
      };
      void q.waitFor("first", 5, 1); // subscribes
      await until(subscribed);
      const now = (await waiting("now")).wait;
      await redis.publish(channel, "not json"); // ignored
      await stored("now", 1);
      await redis.publish(channel, JSON.stringify(["other", "now"]));
      expect(await now).toEqual({ state: "completed", result: { n: 1 } });
      // An older version announced results; the waiter reads what Redis holds all the same.
      const older = (await waiting("older")).wait;
      await stored("older", 2);
      await redis.publish(channel, JSON.stringify([{ id: "older", result: { state: "completed", result: { n: 0 } } }]));
      expect(await older).toEqual({ state: "completed", result: { n: 2 } });
    });
  });

  // "Fast" is bounded by the queue's add timeout (1.5 s), not by a clock here: a hang fails the test timeout.
  it("fails with UNAVAILABLE when Redis is unreachable", async () => {
    const q = new BullmqJobQueue({ redisUrl: "redis://127.0.0.1:1", logger, prefix: "tocsin-down" });
    await expect(q.add({ id: "x", name: "n", lane: 0, data: {} })).rejects.toMatchObject({
      code: "UNAVAILABLE",
      reason: "QUEUE_UNAVAILABLE",
      retryAfterSeconds: 5,
    });
    expect(await q.healthy()).toBe(false);
    await q.close();
  });
});
