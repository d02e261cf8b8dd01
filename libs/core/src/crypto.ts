import { createCipheriv, createDecipheriv, createHash, hash, randomBytes, timingSafeEqual } from "node:crypto";

/** `bytes` random bytes as lowercase hex (so 2×bytes characters). */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}

/** One-shot (`crypto.hash`): a fraction of `createHash`'s cost for short values such as keys. */
export function sha256(value: string): Buffer {
  return hash("sha256", value, "buffer");
}

export function sha256Hex(value: string): string {
  return sha256(value).toString("hex");
}

export function sha1Hex(value: string): string {
  return createHash("sha1").update(value, "utf8").digest("hex");
}

/** Constant-time equality of two byte strings (false when the lengths differ). */
export function safeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/**
 * AES-256-GCM with a per-value random IV. The key is derived from the secret with SHA-256, so
 * any secret string works. Output: `v1:<iv hex>:<tag hex>:<ciphertext hex>`.
 */
export class SecretBox {
  private readonly key: Buffer;
  constructor(secret: string) {
    this.key = createHash("sha256").update(secret, "utf8").digest();
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return `v1:${iv.toString("hex")}:${cipher.getAuthTag().toString("hex")}:${data.toString("hex")}`;
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split(":");
    if (version !== "v1" || !iv || !tag || data === undefined) throw new Error("unknown sealed format");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "hex"));
    decipher.setAuthTag(Buffer.from(tag, "hex"));
    return Buffer.concat([decipher.update(Buffer.from(data, "hex")), decipher.final()]).toString("utf8");
  }
}
