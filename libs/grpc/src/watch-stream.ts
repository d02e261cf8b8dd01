import type { ClientReadableStream } from "@grpc/grpc-js";
import type { Logger } from "@tocsin/core";

export interface WatchStreamOptions<M> {
  /** Opens a new server stream, e.g. `() => client.stream("watchAccessChanges", {}, ctx)`. */
  open(): ClientReadableStream<M>;
  /** The client's `waitForReady`: the stream is only opened once the channel is up. */
  waitForReady(timeoutMs: number): Promise<void>;
  logger: Logger;
  /** What the watch feeds, for the warning logged when it is lost (e.g. "principal cache"). */
  name: string;
  /** First reconnect delay; doubles up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** The first message arrived: the subscription is in place. */
  onUp(): void;
  /** The stream failed or ended; `onUp` follows once a new one delivers its first message. */
  onDown(): void;
  /** Every message, the first one included (after `onUp`). */
  onEvent(message: M): void;
}

export interface WatchStream {
  /** True from the first message of a stream until it fails or ends. */
  live(): boolean;
  close(): void;
}

/**
 * Keeps one server stream of change events open, reconnecting with exponential backoff. Caches
 * fed by it keep answers only while it is live: a change made while the stream is down would go
 * unseen.
 */
export function createWatchStream<M>(options: WatchStreamOptions<M>): WatchStream {
  const minBackoff = options.minBackoffMs ?? 250;
  const maxBackoff = options.maxBackoffMs ?? 10_000;
  let backoff = minBackoff;
  let live = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let call: ClientReadableStream<M> | undefined;
  let warned = false;

  const goLive = () => {
    if (closed || live) return;
    live = true;
    backoff = minBackoff;
    warned = false;
    options.onUp();
  };

  const retry = (err?: Error) => {
    if (closed) return;
    if (!warned) options.logger.warn({ err: err?.message }, `${options.name}: change stream lost; caching off until it is back`);
    warned = true;
    timer = setTimeout(() => void open(), backoff);
    timer.unref();
    backoff = Math.min(backoff * 2, maxBackoff);
  };

  const open = async () => {
    if (closed) return;
    try {
      await options.waitForReady(5_000);
    } catch (err) {
      return retry(err as Error);
    }
    if (closed) return;
    const stream = options.open();
    call = stream;
    stream.on("data", (message: M) => {
      if (call !== stream) return;
      goLive();
      options.onEvent(message);
    });
    const lost = (err?: Error) => {
      if (call !== stream) return;
      call = undefined;
      if (live) options.onDown();
      live = false;
      retry(err);
    };
    stream.on("error", (err: Error) => lost(err));
    stream.on("end", () => lost());
  };
  void open();

  return {
    live: () => live && !closed,
    close() {
      closed = true;
      live = false;
      if (timer) clearTimeout(timer);
      const c = call;
      call = undefined;
      c?.cancel();
    },
  };
}
