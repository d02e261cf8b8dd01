import type { Response } from "express";

/** Webhook error bodies are `{"message": "..."}`, saying what is wrong. */
export function webhookError(res: Response, status: number, message: string, headers: Record<string, string> = {}): void {
  res.status(status).set(headers).json({ message });
}

/** One answer for every credential/endpoint failure, so that nothing leaks. */
export function unauthorized(res: Response): void {
  webhookError(res, 401, "401 Unauthorized: the endpoint does not exist or the credential does not match it", {
    "WWW-Authenticate": 'Bearer realm="tocsin alerts"',
  });
}

export const MAX_WAIT_SECONDS = 10;

/** `Prefer: wait` (10 s) or `Prefer: wait=<seconds>` (at most 10) → milliseconds; 0 when absent. */
export function preferWaitMs(header: string | undefined): number {
  if (!header) return 0;
  for (const part of header.split(/[,;]/)) {
    const m = /^\s*wait\s*(?:=\s*"?(\d+(?:\.\d+)?)"?)?\s*$/i.exec(part);
    if (m) {
      const seconds = m[1] === undefined ? MAX_WAIT_SECONDS : Math.min(Number(m[1]), MAX_WAIT_SECONDS);
      return Math.round(seconds * 1000);
    }
  }
  return 0;
}

/** A usable `Idempotency-Key`: 1–255 visible ASCII characters. undefined when absent; null when bad. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined | null {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) return null;
  const key = header.trim();
  return /^[\x21-\x7e]{1,255}$/.test(key) ? key : null;
}
