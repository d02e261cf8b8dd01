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
      this.entries.delete(key);
      return undefined;
    }
    if (now - entry.setAt >= maxAgeMs) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` for `ttlMs`, or until `notAfter` (epoch ms) when that is sooner. */
  set(key: K, value: V, options: { notAfter?: number } = {}): void {
    const now = this.now();
    const expiresAt = Math.min(now + this.ttlMs, options.notAfter ?? Number.POSITIVE_INFINITY);
    this.entries.delete(key);
    if (expiresAt <= now) return;
    this.entries.set(key, { value, setAt: now, expiresAt });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Drops every entry whose value (or key) `stale` names. */
  deleteWhere(stale: (value: V, key: K) => boolean): void {
    for (const [key, entry] of this.entries) if (stale(entry.value, key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
