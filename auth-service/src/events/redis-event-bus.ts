import { randomBytes } from "node:crypto";
import { type Logger, withTimeout } from "@tocsin/core";
import { Redis } from "ioredis";
import type { AuthEvent, EventBus, EventSink } from "../domain/event-bus.js";

export interface RedisEventBusOptions {
  url: string;
  /** The channel is `<prefix>:auth-events`: every replica on one store shares it. */
  prefix: string;
  logger: Logger;
  /** Bound on one publish, its echo included (default 2 s: well inside the callers' 5 s deadline). */
  publishTimeoutMs?: number;
}

/** What travels on the channel: the publishing replica, its sequence number, the event. */
interface Envelope {
  o: string;
  n: number;
  e: AuthEvent;
}

/**
 * Auth events over Redis pub/sub (REDIS_URL): one connection publishes, one subscribes to
 * `<prefix>:auth-events`, and every event this replica's watch streams see comes from that
 * subscription, its own included (so each is delivered once, in Redis's order, on every replica).
 *
 * - publish resolves when PUBLISH was answered and this replica's subscription got the event
 *   back: Redis hands a message to every subscriber within the one PUBLISH command, so the echo
 *   proves it went out to every other replica too, in order (docs/architecture.md, "Auth events").
 * - Pub/sub keeps nothing for a subscriber that is away: when the subscription drops, the sink
 *   goes down (every watch stream ends, so the caches fed by them cache nothing) and comes up
 *   again once SUBSCRIBE is answered on the new connection.
 * - A publish that fails or times out is still delivered here (the change is stored already);
 *   it is logged, and PUBLISH is sent when Redis is back (ioredis's offline queue).
 */
export class RedisEventBus implements EventBus {
  readonly channel: string;
  /** CLIENT SETNAME of the subscribing connection (`CLIENT KILL NAME` drops it in tests). */
  readonly subscriberName: string;
  private readonly id = randomBytes(6).toString("hex");
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly logger: Logger;
  private readonly publishTimeoutMs: number;
  private readonly pending = new Map<number, () => void>();
  private sink: EventSink | undefined;
  private subscribed = false;
  private closed = false;
  private seq = 0;
  private firstUp: (() => void) | undefined;

  constructor(options: RedisEventBusOptions) {
    this.channel = `${options.prefix}:auth-events`;
    this.logger = options.logger;
    this.publishTimeoutMs = options.publishTimeoutMs ?? 2_000;
    const name = `${this.channel}:${this.id}`;
    this.subscriberName = `${name}:sub`;
    this.pub = new Redis(options.url, { connectionName: `${name}:pub`, lazyConnect: true });
    this.sub = new Redis(options.url, {
      connectionName: this.subscriberName,
      lazyConnect: true,
      autoResubscribe: false,
      keepAlive: 10_000,
    });
    this.pub.on("error", () => undefined); // reconnects by itself; publish logs what it could not send
    this.sub.on("error", () => undefined); // "close" below takes the streams down
    this.sub.on("ready", () => void this.subscribe());
    this.sub.on("close", () => this.lost());
    this.sub.on("message", (_channel: string, text: string) => this.receive(text));
  }

  attach(sink: EventSink): void {
    this.sink = sink;
    // Nothing is received until the first subscription is in place.
    if (!this.subscribed) sink.down();
  }

  /** Connects both connections; resolves once subscribed, or after `timeoutMs` (health says NOT_SERVING until then). */
  async connect(timeoutMs: number): Promise<void> {
    const up = new Promise<void>((resolve) => {
      this.firstUp = resolve;
    });
    await Promise.all([this.pub.connect().catch(() => undefined), this.sub.connect().catch(() => undefined)]);
    await withTimeout(up, timeoutMs).catch(() =>
      this.logger.warn({ channel: this.channel }, "auth events: not subscribed yet; watch streams refused until Redis answers"),
    );
  }

  async publish(event: AuthEvent): Promise<void> {
    const n = ++this.seq;
    // While unsubscribed this replica's streams are down: there is no echo to wait for.
    const echoed = this.subscribed ? new Promise<void>((resolve) => this.pending.set(n, resolve)) : Promise.resolve();
    const envelope: Envelope = { o: this.id, n, e: event };
    try {
      await withTimeout(
        this.pub.publish(this.channel, JSON.stringify(envelope)).then(() => echoed),
        this.publishTimeoutMs,
      );
    } catch (err) {
      this.pending.delete(n);
      this.logger.error(
        { err: (err as Error).message, channel: this.channel },
        "auth event not carried over Redis in time: delivered to this replica's streams only; other replicas' caches may keep stale answers until their TTL",
      );
      this.sink?.deliver(event);
    }
  }

  /** Health: subscribed, and both connections answer. */
  async check(): Promise<void> {
    if (!this.subscribed) throw new Error("not subscribed to auth events");
    await Promise.all([this.pub.ping(), this.sub.ping()]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.releasePending();
    await Promise.all([this.pub, this.sub].map((c) => withTimeout(c.quit(), 2_000).catch(() => c.disconnect())));
  }

  private async subscribe(): Promise<void> {
    try {
      await this.sub.subscribe(this.channel);
    } catch (err) {
      // The connection failed again: "close" follows and the next "ready" retries.
      this.logger.warn({ err: (err as Error).message, channel: this.channel }, "auth events: SUBSCRIBE failed");
      return;
    }
    if (this.closed || this.subscribed) return;
    this.subscribed = true;
    this.sink?.up();
    this.logger.info({ channel: this.channel, client: this.subscriberName }, "auth events: subscribed");
    this.firstUp?.();
    this.firstUp = undefined;
  }

  private lost(): void {
    if (this.subscribed) {
      this.subscribed = false;
      if (!this.closed)
        this.logger.warn({ channel: this.channel }, "auth events: subscription lost; watch streams ended until it is back");
      this.sink?.down(); // while unsubscribed the sink is down already
    }
    // Their events may never come back; the streams they were for have just ended.
    this.releasePending();
  }

  private receive(text: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      this.logger.warn({ channel: this.channel }, "auth events: ignored a message that is not JSON");
      return;
    }
    this.sink?.deliver(envelope.e);
    if (envelope.o !== this.id) return;
    const resolve = this.pending.get(envelope.n);
    this.pending.delete(envelope.n);
    resolve?.();
  }

  private releasePending(): void {
    for (const resolve of this.pending.values()) resolve();
    this.pending.clear();
  }
}
