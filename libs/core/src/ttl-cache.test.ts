import { describe, expect, it } from "vitest";
import { TtlCache } from "./ttl-cache.js";

describe("TtlCache", () => {
  const clock = () => {
    let at = 1_000;
    return { now: () => at, advance: (ms: number) => (at += ms) };
  };

  it("reuses an entry for ttlMs, no longer, nor past its own expiry", () => {
    const c = clock();
    const cache = new TtlCache<string, number>({ ttlMs: 100, now: c.now });
    cache.set("a", 1);
    cache.set("b", 2, { notAfter: c.now() + 10 });
    cache.set("gone", 3, { notAfter: c.now() });
    expect([cache.get("a"), cache.get("b"), cache.get("gone")]).toEqual([1, 2, undefined]);
    c.advance(10);
    expect([cache.get("a"), cache.get("b")]).toEqual([1, undefined]);
    c.advance(90);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("answers a reader's own bound on the entry's age", () => {
    const c = clock();
    const cache = new TtlCache<number, string>({ now: c.now });
    cache.set(1, "x");
    c.advance(50);
    expect(cache.get(1, 0)).toBeUndefined();
    expect(cache.get(1, 50)).toBeUndefined();
    expect(cache.get(1, 51)).toBe("x");
    expect(cache.get(1)).toBe("x");
  });

  it("keeps at most maxEntries, dropping the least recently used", () => {
    const cache = new TtlCache<string, number>({ maxEntries: 2 });
    cache.set("a", 1);
    cache.set("b", 2);
    cache.get("a");
    cache.set("c", 3);
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([1, undefined, 3]);
  });

  it("keeps the order of use exact when the newest key is read again, deleted or set again", () => {
    const cache = new TtlCache<string, number>({ maxEntries: 3 });
    cache.set("a", 1);
    cache.set("b", 2);
    cache.get("a");
    cache.get("a"); // already the newest: the order stays b, a
    cache.set("c", 3);
    cache.set("d", 4); // drops b, the least recently used
    expect([cache.get("b"), cache.get("a")]).toEqual([undefined, 1]); // order c, d, a
    cache.delete("a"); // the newest goes: c, d
    cache.get("c"); // d, c
    cache.set("e", 5); // d, c, e
    cache.set("f", 6); // drops d
    expect([cache.get("d"), cache.get("c"), cache.get("e"), cache.get("f")]).toEqual([undefined, 3, 5, 6]);
    cache.clear();
    cache.set("g", 7);
    cache.set("h", 8);
    cache.set("i", 9);
    cache.get("g"); // h, i, g
    cache.set("j", 10); // drops h
    expect([cache.get("h"), cache.get("i"), cache.get("g"), cache.get("j")]).toEqual([undefined, 9, 7, 10]);
  });

  it("drops what a change names", () => {
    const cache = new TtlCache<string, { user: number }>();
    cache.set("t1", { user: 1 });
    cache.set("t2", { user: 2 });
    cache.deleteWhere((v) => v.user === 1);
    expect([cache.get("t1"), cache.get("t2")]).toEqual([undefined, { user: 2 }]);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
