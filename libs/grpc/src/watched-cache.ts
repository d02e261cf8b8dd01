import { TtlCache } from "@tocsin/core";
import { createWatchStream, type WatchStreamOptions } from "./watch-stream.js";

/** What names an answer in change events: a number (token id, user id, project id) or a string (a path). */
export type CacheTag = number | string;

/** What a change event makes stale: everything, the entries tagged with one of these tags, or nothing. */
type Staleness = "all" | ReadonlySet<CacheTag> | undefined;

export interface WatchedCacheOptions<M> extends Omit<WatchStreamOptions<M>, "onUp" | "onDown" | "onEvent"> {
  /** How long an answer is reused at most. */
  ttlMs?: number;
  /** Most answers kept; the least recently used go first. */
  maxEntries?: number;
  now?: () => number;
  staleOn(message: M): Staleness;
}

interface CacheOptions<T> {
  /** What an event names to drop this answer (a token id, a user id; several for several names). */
  tag(value: T): CacheTag | readonly CacheTag[];
  /** Epoch ms from which the answer must not be reused (e.g. the token's expiry). */
  notAfter?(value: T): number;
}

export interface WatchedCache {
  /**
   * The cached answer for `key`, or `load()`'s, which is kept only if it succeeded, the watch is
   * live, and no change event arrived while it loaded. Failures are never cached.
   */
  get<T>(key: string, load: () => Promise<T>, options: CacheOptions<T>): Promise<T>;
  /** Drops the answer for `key` at once (e.g. the session this gateway just ended). */
  forget(key: string): void;
  /** True while the change stream is up (answers are cached only then). */
  live(): boolean;
  size(): number;
  close(): void;
}

interface Entry {
  value: unknown;
  tags: readonly CacheTag[];
}

/**
 * The one cache of answers from another service: a bounded LRU of successful answers, each for at
 * most `ttlMs`, kept coherent by a change stream: its events drop the answers they make stale, and
 * nothing is cached while it is down. The gateway's principal and endpoint caches and
 * settings-service's directory cache are all this.
 */
export function createWatchedCache<M>(options: WatchedCacheOptions<M>): WatchedCache {
  const entries = new TtlCache<string, Entry>({
    ttlMs: options.ttlMs ?? 30_000,
    maxEntries: options.maxEntries ?? 10_000,
    now: options.now ?? Date.now,
  });
  // Bumped by every event, so that an answer loaded across a change is not kept.
  let generation = 0;
  const reset = () => {
    generation++;
    entries.clear();
  };
  const watch = createWatchStream<M>({
    ...options,
    onUp: reset,
    onDown: reset,
    onEvent(message) {
      generation++;
      const stale = options.staleOn(message);
      if (stale === "all") return entries.clear();
      if (!stale || stale.size === 0) return;
      entries.deleteWhere((entry) => entry.tags.some((t) => stale.has(t)));
    },
  });

  return {
    async get<T>(key: string, load: () => Promise<T>, opts: CacheOptions<T>): Promise<T> {
      const hit = watch.live() ? entries.get(key) : undefined;
      if (hit) return hit.value as T;
      entries.delete(key);
      const startedAt = generation;
      const value = await load();
      if (!watch.live() || startedAt !== generation) return value;
      const tag = opts.tag(value);
      const notAfter = opts.notAfter?.(value);
      entries.set(key, { value, tags: Array.isArray(tag) ? tag : [tag as CacheTag] }, notAfter === undefined ? {} : { notAfter });
      return value;
    },
    forget(key) {
      generation++;
      entries.delete(key);
    },
    live: () => watch.live(),
    size: () => entries.size,
    close() {
      watch.close();
      entries.clear();
    },
  };
}
