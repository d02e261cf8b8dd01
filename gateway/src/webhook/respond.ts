import type { ServerResponse } from "node:http";
import { AppError, forbidden, invalidArgument } from "@tocsin/core";
import { toHttpError } from "../http-errors.js";

// The webhook's own refusals, as AppErrors: they leave through the one code → HTTP table
// (http-errors.ts) like every other error of the gateway.

/** One answer for every credential/endpoint failure, so that nothing leaks. */
export const webhookUnauthorized = () =>
  new AppError(
    "UNAUTHENTICATED",
    "WEBHOOK_UNAUTHORIZED",
    "401 Unauthorized: the endpoint does not exist or the credential does not match it",
  );

export const endpointIdentifierInvalid = () =>
  new AppError("NOT_FOUND", "ENDPOINT_NOT_FOUND", "404 Not Found: the endpoint identifier may only contain letters and digits");

export const integrationInactive = () =>
  forbidden("INTEGRATION_INACTIVE", "403 Forbidden: the integration is disabled. Enable it to receive alerts.");

export const integrationOverTierLimit = () =>
  forbidden(
    "INTEGRATION_OVER_TIER_LIMIT",
    "403 Forbidden: the project's tier allows only its oldest integration of this type to receive alerts.",
  );

export const webhookPayloadTooLarge = () =>
  new AppError("RESOURCE_EXHAUSTED", "PAYLOAD_TOO_LARGE", "413 Request Entity Too Large: the body must be at most 1 MiB");

/** A request the webhook cannot take (body, headers): 400 `{"message": ...}`. */
export const webhookBadRequest = (message: string) => invalidArgument("WEBHOOK_REQUEST_INVALID", message);

/** A JSON answer, as express's `res.status(status).json(body)` writes it (without its ETag). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

/** What a refusal was, for the webhook's log: the HTTP status, the AppError reason, and whether it was unexpected. */
export interface Refusal {
  status: number;
  reason: string;
  unexpected: boolean;
}

/**
 * Every webhook failure, through `toHttpError`. The webhook's bodies are always `{"message": "..."}`
 * (a string, saying what is wrong), and a 401 carries the Bearer challenge.
 */
export function sendWebhookError(res: ServerResponse, err: unknown): Refusal {
  const mapped = toHttpError(err);
  const body = mapped.body as { message?: unknown; error?: string };
  const message = typeof body.message === "string" ? body.message : (body.error ?? JSON.stringify(body.message));
  for (const [name, value] of Object.entries(mapped.headers)) res.setHeader(name, value);
  if (mapped.status === 401) res.setHeader("WWW-Authenticate", 'Bearer realm="tocsin alerts"');
  sendJson(res, mapped.status, { message });
  return { status: mapped.status, reason: err instanceof AppError ? err.reason : "INTERNAL", unexpected: mapped.unexpected };
}

const MAX_WAIT_SECONDS = 10;

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
