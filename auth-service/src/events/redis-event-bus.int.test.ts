import { silentLogger } from "@tocsin/core";
import { freePort, startOwnRedis, until } from "@tocsin/testing";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import type { AuthEvent, EventSink } from "../domain/event-bus.js";
import { RedisEventBus } from "./redis-event-bus.js";

/** Records what a bus hands to its replica, in order. */
class RecordingSink implements EventSink {
  readonly log: (AuthEvent | "down" | "up")[] = [];
  deliver(event: AuthEvent) {
    this.log.push(event);
  }
  down() {
    this.log.push("down");
  }
  up() {
    this.log.push("up");
  }
  events() {
    return this.log.filter((e) => typeof e !== "string");
  }
  last() {
    return this.log.filter((e) => typeof e === "string").at(-1);
  }
}

const revoked = (id: number): AuthEvent => ({ access: { revokedTokenIds: [id], userIds: [], all: false } });
const key = (projectId: number): AuthEvent => ({ keys: { projectId, projectFullPath: `g/p${projectId}`, all: false } });

const redisUrl = inject("redisUrl");
if (!redisUrl) console.warn("[auth events] Redis unavailable: the Redis event bus tests are SKIPPED");
describe.skipIf(!redisUrl)("RedisEventBus (auth events over Redis pub/sub)", () => {
  const buses: RedisEventBus[] = [];
  let admin: Redis;
  beforeAll(() => {
    admin = new Redis(redisUrl);
  });
  afterAll(() => admin.disconnect());
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((b) => b.close()));
  });

  const open = async (prefix: string) => {
    const bus = new RedisEventBus({ url: redisUrl, prefix, logger: silentLogger() });
    const sink = new RecordingSink();
    bus.attach(sink);
    buses.push(bus);
    await bus.connect(10_000);
    return { bus, sink };
  };
  const uniquePrefix = () => `tocsin-test-events-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const clients = async () =>
    String(await admin.call("CLIENT", "LIST"))
      .split("\n")
      .map((line) => ({ id: / ?id=(\d+)/.exec(line)?.[1] ?? "", name: / name=(\S*)/.exec(line)?.[1] ?? "" }));
  const clientNames = async () => (await clients()).map((c) => c.name);
  /** Drops one connection by its CLIENT SETNAME (CLIENT KILL has no NAME filter). */
  const kill = async (name: string) => {
    const client = (await clients()).find((c) => c.name === name);
    if (!client) throw new Error(`no Redis client named ${name}`);
    await admin.call("CLIENT", "KILL", "ID", client.id);
  };

  it("delivers every event once to every replica, the publisher's own before publish resolves, in one order", async () => {
    const prefix = uniquePrefix();
    const a = await open(prefix);
    const b = await open(prefix);
    expect(a.sink.log).toEqual(["down", "up"]);
    await a.bus.check();

    await a.bus.publish(revoked(7));
    // The publisher's own streams have it when the mutating call answers.
    expect(a.sink.events()).toEqual([revoked(7)]);
    await Promise.all([a.bus.publish(key(1)), b.bus.publish(key(2)), a.bus.publish(key(3)), b.bus.publish(key(4))]);
    // Each publish resolved on its own replica's echo: Redis wrote the message to every
    // subscriber's socket in that one PUBLISH, but the other replica may not have read it yet.
    await until(() => a.sink.events().length >= 5 && b.sink.events().length >= 5);
    expect(a.sink.events()).toHaveLength(5);
    expect(b.sink.events()).toHaveLength(5);
    expect(b.sink.events()).toEqual(a.sink.events());
    expect(new Set(a.sink.events().map((e) => JSON.stringify(e))).size).toBe(5);
  });

  it("keeps deployments on other prefixes apart", async () => {
    const a = await open(uniquePrefix());
    const other = await open(uniquePrefix());
    await a.bus.publish(revoked(1));
    await other.bus.publish(revoked(2));
    expect(a.sink.events()).toEqual([revoked(1)]);
    expect(other.sink.events()).toEqual([revoked(2)]);
  });

  it("goes down when its subscription drops (events may be missed) and up once subscribed again", async () => {
    const prefix = uniquePrefix();
    const a = await open(prefix);
    const b = await open(prefix);
    expect(await clientNames()).toContain(b.bus.subscriberName);

    await kill(b.bus.subscriberName);
    await until(() => b.sink.log.includes("down") && b.sink.last() === "up" && b.sink.log.length >= 4);
    expect(b.sink.log).toEqual(["down", "up", "down", "up"]);
    expect(a.sink.log).toEqual(["down", "up"]);

    // Resubscribed: events flow again, and b's own publish resolves after its echo.
    await a.bus.publish(revoked(3));
    await until(() => b.sink.events().length === 1);
    await b.bus.publish(revoked(4));
    expect(b.sink.events()).toEqual([revoked(3), revoked(4)]);
    await b.bus.check();
  });

  it("never leaves a publisher waiting on an echo that cannot come: its subscription dropping releases it", async () => {
    const a = await open(uniquePrefix());
    const publishes = Array.from({ length: 50 }, (_, i) => a.bus.publish(revoked(i)));
    await kill(a.bus.subscriberName);
    await Promise.all(publishes);
    // Every event either reached this replica's sink or the sink went down after it was published.
    const delivered = a.sink.events().length;
    expect(delivered === 50 || a.sink.log.includes("down", 2)).toBe(true);
  });

  it("closes both of its connections", async () => {
    const a = await open(uniquePrefix());
    const name = a.bus.subscriberName;
    await a.bus.close();
    const names = await clientNames();
    expect(names).not.toContain(name);
    expect(names).not.toContain(name.replace(/:sub$/, ":pub"));
  });
});

describe.skipIf(!redisUrl)("RedisEventBus while Redis itself is away (a redis-server of this test)", () => {
  it("starts down without Redis, comes up when it starts, goes down and up across a restart; a publish meanwhile is bounded and delivered here", async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const sink = new RecordingSink();
    const bus = new RedisEventBus({ url, prefix: "tocsin-test-restart", logger: silentLogger(), publishTimeoutMs: 300 });
    bus.attach(sink);
    await bus.connect(300);
    expect(sink.log).toEqual(["down"]);
    await expect(bus.check()).rejects.toThrow();

    let redis = await startOwnRedis(port);
    if (!redis) throw new Error("redis-server is needed for this test");
    try {
      await until(() => sink.last() === "up");
      await bus.check();
      await redis.stop();
      await until(() => sink.last() === "down");
      await expect(bus.check()).rejects.toThrow();
      // Redis is away: the publish gives up after its bound, and this replica's streams still get it.
      await bus.publish(revoked(9));
      expect(sink.events()).toEqual([revoked(9)]);

      redis = await startOwnRedis(port);
      if (!redis) throw new Error("redis-server did not start again");
      await until(() => sink.last() === "up", 30_000);
      await bus.publish(revoked(10));
      expect(sink.events().at(-1)).toEqual(revoked(10));
      await bus.check();
    } finally {
      await bus.close();
      await redis?.stop();
    }
  });
});
