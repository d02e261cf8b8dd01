import { createHmac, timingSafeEqual } from "node:crypto";
import { AppError } from "@tocsin/core";

/** Header of a signed post: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. */
export const SIGNATURE_HEADER = "x-tocsin-signature";
/** How far `t` may be from the gateway's clock, either way. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignatureVerdict = "ok" | "missing" | "malformed" | "stale" | "wrong";

/**
 * Checks an X-Tocsin-Signature over the raw body bytes: `t` within 300 s of `nowSeconds`, and
 * one of the `v1=` values (several are allowed, for secret rollover on the sender's side) equal
 * to the HMAC in constant time.
 */
export function verifySignature(header: string | undefined, secret: string, body: Buffer, nowSeconds: number): SignatureVerdict {
  if (!header?.trim()) return "missing";
  let t: string | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(",")) {
    const [key, value] = part.trim().split("=", 2) as [string, string | undefined];
    if (key === "t" && value && /^\d{1,12}$/.test(value)) t = value;
    if (key === "v1" && value && /^[0-9a-fA-F]{64}$/.test(value)) signatures.push(Buffer.from(value, "hex"));
  }
  if (t === undefined || signatures.length === 0) return "malformed";
  if (Math.abs(nowSeconds - Number(t)) > SIGNATURE_TOLERANCE_SECONDS) return "stale";
  const expected = createHmac("sha256", secret).update(`${t}.`).update(body).digest();
  let match = false;
  for (const s of signatures) match = timingSafeEqual(s, expected) || match;
  return match ? "ok" : "wrong";
}

const MESSAGES: Record<Exclude<SignatureVerdict, "ok">, string> = {
  missing: "401 Unauthorized: this integration requires signed payloads: the X-Tocsin-Signature header is missing",
  malformed: "401 Unauthorized: X-Tocsin-Signature must be t=<unix seconds>,v1=<64 hex characters>",
  stale: `401 Unauthorized: the X-Tocsin-Signature timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds from now`,
  wrong:
    '401 Unauthorized: the X-Tocsin-Signature does not match the body (HMAC-SHA256 of "<t>.<raw body>" with the signing secret)',
};

export function signatureRefused(verdict: Exclude<SignatureVerdict, "ok">): AppError {
  return new AppError("UNAUTHENTICATED", `SIGNATURE_${verdict.toUpperCase()}`, MESSAGES[verdict]);
}
