import type { ClientDuplexStream, StatusObject } from "@grpc/grpc-js";
import { AppError } from "@tocsin/core";
import { fromGrpcError, transportError } from "./status.js";

interface Sequenced {
  seq: number;
}

/**
 * The reason of an item a draining server refused before doing anything with it: the client
 * sends it again on another stream (another replica, when there is one), once.
 */
export const STREAM_DRAINING_REASON = "STREAM_DRAINING";

export interface BatchStreamOptions<I extends Sequenced, R extends Sequenced, T> {
  /** Opens one stream: a new call, which a balanced channel puts on a healthy replica. */
  open(): ClientDuplexStream<{ items: I[] }, { results: R[] }>;
  /** Names the target in transport errors (`alert` → ALERT_UNAVAILABLE). */
  target: string;
  /** The answer a result carries, or the AppError it stands for. */
  settle(result: R): T | AppError;
  /** Most items in one message; a full batch is sent at once (default 256). */
  maxBatch?: number;
  /** Streams kept open, each on the replica it opened on; batches go round-robin (default 1). */
  streams?: number;
  /** A stream older than this takes no new batches and ends once idle, so load spreads again after a failover (default 60 s). */
  maxStreamAgeMs?: number;
}

export interface BatchStream<I extends Sequenced, T> {
  /**
   * Sends `item` in the next micro-batch (its `seq` is set here) and settles from its result.
   * Never hangs: a broken or ended stream fails it with UNAVAILABLE (UNIMPLEMENTED when the
   * server has no such method, so nothing ran), and no result within
   * `timeoutMs` fails it with DEADLINE_EXCEEDED's AppError (as a unary call's deadline would).
   */
  call(item: Omit<I, "seq">, timeoutMs: number): Promise<T>;
  /** Items sent or waiting without a result. */
  inFlight(): number;
  /** Fails everything in flight with UNAVAILABLE and ends the streams. */
  close(): void;
}

interface Waiting<T> {
  item: Sequenced;
  /** Sent again after a draining server refused it. */
  resent: boolean;
  resolve(value: T): void;
  reject(err: AppError): void;
  timer: NodeJS.Timeout;
  conn?: Conn<T>;
  sentAt: number;
}

interface Conn<T> {
  call: ClientDuplexStream<unknown, unknown>;
  pending: Map<number, Waiting<T>>;
  openedAt: number;
  /** When a result last arrived (0: never). */
  lastResultAt: number;
  /** Takes no new batches; ends once its pending items are answered. */
  retired: boolean;
  /** This side has half-closed. */
  ended: boolean;
  done: boolean;
}

/**
 * Micro-batching over a bidirectional stream whose requests carry `items` (each with a `seq`)
 * and whose responses carry `results` tagged with those `seq`s, in any order. Items called in
 * one turn of the event loop go out as one message (at most `maxBatch`; a full batch goes at
 * once). An item that was sent is never sent again: its result may have been lost after the
 * server acted on it, so a broken stream fails it (UNAVAILABLE) and the next item opens a new
 * stream.
 */
export function createBatchStream<I extends Sequenced, R extends Sequenced, T>(
  options: BatchStreamOptions<I, R, T>,
): BatchStream<I, T> {
  const maxBatch = options.maxBatch ?? 256;
  const maxAge = options.maxStreamAgeMs ?? 60_000;
  const lanes: Array<Conn<T> | undefined> = Array.from({ length: Math.max(1, options.streams ?? 1) });
  let nextLane = 0;
  let seq = 0;
  let queue: Array<Waiting<T>> = [];
  let scheduled = false;
  let closed = false;
  let inFlight = 0;
  const unavailable = (details: string) => transportError("UNAVAILABLE", options.target, details);

  function finish(conn: Conn<T>, err: AppError) {
    if (conn.done) return;
    conn.done = true;
    const index = lanes.indexOf(conn);
    if (index >= 0) lanes[index] = undefined;
    for (const waiting of conn.pending.values()) fail(waiting, err);
    conn.pending.clear();
  }

  function fail(waiting: Waiting<T>, err: AppError) {
    clearTimeout(waiting.timer);
    inFlight--;
    waiting.reject(err);
  }

  function open(): Conn<T> {
    const call = options.open() as ClientDuplexStream<unknown, unknown>;
    const now = Date.now();
    const conn: Conn<T> = {
      call,
      pending: new Map(),
      openedAt: now,
      lastResultAt: 0,
      retired: false,
      ended: false,
      done: false,
    };
    call.on("data", (message: { results: R[] }) => {
      conn.lastResultAt = Date.now();
      for (const result of message.results) {
        const waiting = conn.pending.get(result.seq);
        if (!waiting) continue; // its deadline passed first
        conn.pending.delete(result.seq);
        const answer = options.settle(result);
        if (answer instanceof AppError && answer.reason === STREAM_DRAINING_REASON) {
          // The server is going away and did nothing with it: send it again on a new stream.
          conn.retired = true;
          resend(waiting, answer);
          continue;
        }
        clearTimeout(waiting.timer);
        inFlight--;
        if (answer instanceof AppError) waiting.reject(answer);
        else waiting.resolve(answer);
      }
      if (conn.retired && conn.pending.size === 0) endConn(conn);
    });
    // Every end of the call comes as one status; 'error' is its non-OK twin, handled there.
    call.on("error", () => undefined);
    call.on("status", (status: StatusObject) => {
      if (status.code === 0) {
        // A clean end comes only after every item the server took was answered: what is still
        // pending never reached it, and goes out again on another stream.
        const unanswered = [...conn.pending.values()];
        conn.pending.clear();
        finish(conn, unavailable("the stream ended"));
        for (const waiting of unanswered) resend(waiting, unavailable("the stream ended with items in flight"));
        return;
      }
      const err = fromGrpcError(Object.assign(new Error(status.details), status), options.target);
      // A server without the method ran nothing: UNIMPLEMENTED lets the caller use another way.
      if (err.code === "UNIMPLEMENTED") return finish(conn, err);
      // A transport failure or a stream-level error: the items' fate is unknown, so they fail.
      finish(conn, unavailable(err.message));
    });
    return conn;
  }

  function endConn(conn: Conn<T>) {
    if (conn.ended || conn.done) return;
    conn.ended = true;
    conn.call.end();
  }

  function laneFor(): Conn<T> {
    const index = nextLane++ % lanes.length;
    let conn = lanes[index];
    if (conn && !conn.retired && Date.now() - conn.openedAt > maxAge) {
      conn.retired = true;
      if (conn.pending.size === 0) endConn(conn);
    }
    if (!conn || conn.done || conn.retired) {
      conn = open();
      lanes[index] = conn;
    }
    return conn;
  }

  function flush() {
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.length > maxBatch ? queue.slice(0, maxBatch) : queue;
      queue = queue.length > maxBatch ? queue.slice(maxBatch) : [];
      const conn = laneFor();
      const now = Date.now();
      const items: Sequenced[] = [];
      for (const waiting of batch) {
        waiting.conn = conn;
        waiting.sentAt = now;
        conn.pending.set(waiting.item.seq, waiting);
        items.push(waiting.item);
      }
      conn.call.write({ items });
    }
  }

  /** An item (still in flight) the server never acted on goes out once more, else fails with `err`. */
  function resend(waiting: Waiting<T>, err: AppError) {
    if (waiting.resent || closed) return fail(waiting, err);
    waiting.resent = true;
    enqueue(waiting);
  }

  function enqueue(waiting: Waiting<T>) {
    waiting.conn = undefined;
    queue.push(waiting);
    if (queue.length >= maxBatch) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  }

  /** No result within the item's time: fail it, and if its stream answered nothing since, drop that stream. */
  function expire(waiting: Waiting<T>) {
    const conn = waiting.conn;
    if (!conn) {
      queue = queue.filter((q) => q !== waiting);
    } else {
      conn.pending.delete(waiting.item.seq);
      if (!conn.done && conn.lastResultAt < waiting.sentAt) {
        conn.call.cancel();
        finish(conn, unavailable("no answer on the stream"));
      }
    }
    inFlight--;
    waiting.reject(transportError("DEADLINE_EXCEEDED", options.target, "Deadline exceeded"));
  }

  return {
    call(partial, timeoutMs) {
      if (closed) return Promise.reject(unavailable("the client is closed"));
      return new Promise<T>((resolve, reject) => {
        seq = seq >= Number.MAX_SAFE_INTEGER ? 1 : seq + 1;
        const item = { ...partial, seq } as I;
        const waiting: Waiting<T> = {
          item,
          resent: false,
          resolve,
          reject,
          sentAt: 0,
          timer: setTimeout(() => expire(waiting), timeoutMs),
        };
        inFlight++;
        enqueue(waiting);
      });
    },
    inFlight: () => inFlight,
    close() {
      closed = true;
      for (const waiting of queue) fail(waiting, unavailable("the client is closed"));
      queue = [];
      for (const conn of lanes) {
        if (!conn) continue;
        finish(conn, unavailable("the client is closed"));
        conn.call.cancel();
      }
    },
  };
}
