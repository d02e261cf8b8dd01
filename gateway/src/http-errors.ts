import { AppError, type ErrorCode } from "@tocsin/core";

/** HTTP status per AppError code (docs/architecture.md, "Errors"). */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  CANCELLED: 500,
  UNKNOWN: 500,
  INVALID_ARGUMENT: 400,
  DEADLINE_EXCEEDED: 503,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  PERMISSION_DENIED: 403,
  RESOURCE_EXHAUSTED: 429,
  FAILED_PRECONDITION: 400,
  ABORTED: 409,
  OUT_OF_RANGE: 400,
  UNIMPLEMENTED: 501,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DATA_LOSS: 500,
  UNAUTHENTICATED: 401,
};

/** Reasons whose HTTP status is not their code's: an acknowledge link that expired or was revoked is gone. */
const STATUS_BY_REASON: Record<string, number> = {
  PAYLOAD_TOO_LARGE: 413,
  PAGE_TOKEN_EXPIRED: 410,
  PAGE_TOKEN_REVOKED: 410,
};

/** Reasons whose message GitLab renders as `{"error": ...}` (Grape's parameter errors, routing). */
const ERROR_KEY_REASONS = new Set(["PARAM_INVALID", "PARAM_MISSING", "PARAM_VALUE_INVALID", "ROUTE_NOT_FOUND"]);

const DEFAULT_RETRY_AFTER_SECONDS = 5;

type HttpErrorBody = { message: unknown } | { error: string };

export interface HttpError {
  status: number;
  body: HttpErrorBody;
  headers: Record<string, string>;
  /** True when the detail must be logged (the client only sees a generic 500). */
  unexpected: boolean;
}

const INTERNAL_BODY = { message: "500 Internal Server Error" } as const;

/**
 * The one mapping from an error to what an HTTP client sees. AppErrors keep their GitLab text;
 * anything else is a 500 whose detail stays in the log.
 */
export function toHttpError(err: unknown): HttpError {
  if (!(err instanceof AppError)) return { status: 500, body: { ...INTERNAL_BODY }, headers: {}, unexpected: true };
  const status = STATUS_BY_REASON[err.reason] ?? STATUS_BY_CODE[err.code];
  const headers: Record<string, string> = {};
  if (status === 503 || (status === 429 && err.retryAfterSeconds !== undefined)) {
    headers["Retry-After"] = String(Math.max(1, Math.ceil(err.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS)));
  }
  if (status === 500) return { status, body: { ...INTERNAL_BODY }, headers, unexpected: true };
  return { status, body: bodyOf(err), headers, unexpected: false };
}

function bodyOf(err: AppError): HttpErrorBody {
  if (err.fields) return { message: err.fields };
  if (ERROR_KEY_REASONS.has(err.reason)) return { error: err.message };
  return { message: err.message };
}

// OAuth-style bearer errors (GitLab's APIGuard): their bodies carry fields an AppError cannot,
// so the authentication middleware renders them through these two.

/** 401 `{"error":"invalid_token",...}` with a `WWW-Authenticate: Bearer` challenge. */
export function invalidTokenError(description: string): HttpError {
  const quoted = description.replace(/["\\]/g, "");
  return {
    status: 401,
    body: { error: "invalid_token", error_description: description } as HttpErrorBody,
    headers: { "WWW-Authenticate": `Bearer realm="Tocsin", error="invalid_token", error_description="${quoted}"` },
    unexpected: false,
  };
}

/** 403 for a token whose scopes do not allow the request (a `read_api` token writing). */
export function insufficientScopeError(scope: string): HttpError {
  const description = "The request requires higher privileges than provided by the access token.";
  return {
    status: 403,
    body: { error: "insufficient_scope", error_description: description, scope } as HttpErrorBody,
    headers: {
      "WWW-Authenticate": `Bearer realm="Tocsin", error="insufficient_scope", error_description="${description}", scope="${scope}"`,
    },
    unexpected: false,
  };
}
