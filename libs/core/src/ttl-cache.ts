/**
 * The one in-process cache of looked-up answers: a bounded LRU (the least recently used go first
 * past `maxEntries`) whose entries are reused for at most `ttlMs`, or less: an entry's own expiry
 * (`set(…, { notAfter })`) and a reader's own bound (`get(key, maxAgeMs)`). Who invalidates on
 * change does so with `delete`, `deleteWhere` or `clear`.
 */
export interface TtlCacheOptions {
  /** How long an entry is reused at most (default: until evicted or deleted). */
  ttlMs?: number;
  /** Most entries kept (default 10,000). */
  maxEntries?: number;
  /** Epoch ms now (default Date.now; tests pass a fake clock's). */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  setAt: number;
  expiresAt: number;
}

export class TtlCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  /** The key at the end of `entries` (the most recently used), when known. */
  private newest: K | undefined;

  constructor(options: TtlCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? Number.POSITIVE_INFINITY;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** The entry's value while it is fresh (and set at most `maxAgeMs` ago); a stale one is dropped. */
  get(key: K, maxAgeMs = Number.POSITIVE_INFINITY): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const now = this.now();
    if (now >= entry.expiresAt) {
      this.delete(key);
      return undefined;
    }
    if (now - entry.setAt >= maxAgeMs) return undefined;
    this.touch(key, entry);
    return entry.value;
  }

  /**
   * Makes `key` the most recently used: re-inserted at the end of the map, unless it is there
   * already. A hot key (one project's entry read for every alert of a storm) then costs a lookup,
   * not a delete and an insert each time (and the map's rehash of their tombstones).
   */
  private touch(key: K, entry: Entry<V>): void {
    if (this.newest === key) return;
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.newest = key;
  }

  /** Keeps `value` for `ttlMs`, or until `notAfter` (epoch ms) when that is sooner. */
  set(key: K, value: V, options: { notAfter?: number } = {}): void {
    const now = this.now();
    const expiresAt = Math.min(now + this.ttlMs, options.notAfter ?? Number.POSITIVE_INFINITY);
    this.delete(key);
    if (expiresAt <= now) return;
    this.entries.set(key, { value, setAt: now, expiresAt });
    this.newest = key;
    while (this.entries.size > this.maxEntries) this.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
    if (this.newest === key) this.newest = undefined;
  }

  /** Drops every entry whose value (or key) `stale` names. */
  deleteWhere(stale: (value: V, key: K) => boolean): void {
    for (const [key, entry] of this.entries) if (stale(entry.value, key)) this.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.newest = undefined;
  }

  get size(): number {
    return this.entries.size;
  }
}
