import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The acknowledge link's token (PRODUCT.md section 11): `<payload>.<mac>`, both base64url; the
 * payload is `{a: alert id, u: user id, e: expiry in epoch seconds}`, the MAC HMAC-SHA256 with
 * the instance's SECRET_KEY over a purpose prefix and the payload. Valid 24 h.
 */

export const ACK_TOKEN_TTL_MS = 24 * 3_600_000;
const PURPOSE = "tocsin.page-ack.v1:";

export interface AckClaims {
  alertId: number;
  userId: number;
  expiresAt: Date;
}

const mac = (secret: string, payload: string) =>
  createHmac("sha256", secret)
    .update(PURPOSE + payload)
    .digest("base64url");

export function signAckToken(secret: string, claims: AckClaims): string {
  const payload = Buffer.from(
    JSON.stringify({ a: claims.alertId, u: claims.userId, e: Math.floor(claims.expiresAt.getTime() / 1000) }),
  ).toString("base64url");
  return `${payload}.${mac(secret, payload)}`;
}

export type AckTokenCheck = { ok: true; claims: AckClaims } | { ok: false; reason: "invalid" | "expired" };

/** Checks the MAC first (a tampered token is `invalid`), then the expiry. */
export function verifyAckToken(secret: string, token: string, now: Date): AckTokenCheck {
  const [payload, given, ...rest] = token.split(".");
  if (!payload || !given || rest.length) return { ok: false, reason: "invalid" };
  const expected = Buffer.from(mac(secret, payload));
  const actual = Buffer.from(given);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return { ok: false, reason: "invalid" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return { ok: false, reason: "invalid" };
  }
  const { a, u, e } = (parsed ?? {}) as { a?: unknown; u?: unknown; e?: unknown };
  if (!Number.isSafeInteger(a) || !Number.isSafeInteger(u) || !Number.isSafeInteger(e)) return { ok: false, reason: "invalid" };
  const expiresAt = new Date((e as number) * 1000);
  if (expiresAt.getTime() <= now.getTime()) return { ok: false, reason: "expired" };
  return { ok: true, claims: { alertId: a as number, userId: u as number, expiresAt } };
}
