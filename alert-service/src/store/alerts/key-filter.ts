/**
 * A Bloom filter of strings: `has` is false only for a key never added (true for about 1 % of
 * the others at its capacity). 10 bits per key, 7 probes by double hashing of two FNV-1a hashes.
 * Written here rather than taken from a package: the packages bring hashing dependencies for what
 * is these few lines.
 */
export class KeyFilter {
  private readonly bits: Uint32Array;
  private readonly size: number;
  /** Keys added, counting repeats. */
  added = 0;

  constructor(readonly capacity: number) {
    this.size = Math.max(1024, capacity * 10);
    this.bits = new Uint32Array(Math.ceil(this.size / 32));
  }

  add(key: string): void {
    this.added++;
    const [a, b] = hashes(key);
    for (let i = 0; i < PROBES; i++) {
      const bit = (a + i * b) % this.size;
      this.bits[bit >>> 5] = (this.bits[bit >>> 5] as number) | (1 << (bit & 31));
    }
  }

  has(key: string): boolean {
    const [a, b] = hashes(key);
    for (let i = 0; i < PROBES; i++) {
      const bit = (a + i * b) % this.size;
      if (((this.bits[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

const PROBES = 7;

/** Two 32-bit FNV-1a hashes of the key's UTF-16 units (different offsets), the second odd. */
function hashes(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193);
  }
  return [a >>> 0, (b | 1) >>> 0];
}
