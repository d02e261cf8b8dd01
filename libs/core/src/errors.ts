/**
 * The one error type of Tocsin. Codes are gRPC's canonical codes (as names, so that this file
 * imports no transport); `reason` is a stable UPPER_SNAKE identifier a caller can branch on;
 * `message` is safe to show to users; `cause` is for logs only and never leaves the process.
 */
export const ERROR_CODES = [
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Field-level validation messages, GitLab style: `{"notification_email": ["must be ..."]}`. */
export type FieldErrors = Record<string, string[]>;

export interface AppErrorOptions {
  /** Field-level messages; shown instead of `message` where the transport supports it. */
  fields?: FieldErrors;
  /** The underlying error, logged but never sent to a client. */
  cause?: unknown;
  /** For UNAVAILABLE / RESOURCE_EXHAUSTED: when a retry makes sense. */
  retryAfterSeconds?: number;
}

export class AppError extends Error {
  override readonly name = "AppError";
  readonly fields: FieldErrors | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly code: ErrorCode,
    readonly reason: string,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.fields = options.fields;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  static is(err: unknown): err is AppError {
    return err instanceof AppError;
  }
}

/** Wraps anything thrown into an AppError; unknown errors become INTERNAL with a safe message. */
export function toAppError(err: unknown): AppError {
  return err instanceof AppError ? err : internal(err);
}

// Constructors for the conditions every service shares. Messages follow GitLab's REST bodies.

export const invalidArgument = (reason: string, message: string, fields?: FieldErrors) =>
  new AppError("INVALID_ARGUMENT", reason, message, fields ? { fields } : {});

/** A request parameter that is not of the expected form: `{"error":"<param> is invalid"}`. */
export const paramInvalid = (param: string) => new AppError("INVALID_ARGUMENT", "PARAM_INVALID", `${param} is invalid`);

/** A required request parameter that is absent: `{"error":"<param> is missing"}`. */
export const paramMissing = (param: string) => new AppError("INVALID_ARGUMENT", "PARAM_MISSING", `${param} is missing`);

/** `404 <Resource> Not Found`, e.g. notFound("Project") → reason PROJECT_NOT_FOUND. */
export const notFound = (resource?: string) =>
  resource
    ? new AppError("NOT_FOUND", `${resource.toUpperCase().replace(/\s+/g, "_")}_NOT_FOUND`, `404 ${resource} Not Found`)
    : new AppError("NOT_FOUND", "NOT_FOUND", "404 Not Found");

export const forbidden = (reason = "FORBIDDEN", message = "403 Forbidden") => new AppError("PERMISSION_DENIED", reason, message);

export const unauthenticated = (reason = "UNAUTHENTICATED", message = "401 Unauthorized") =>
  new AppError("UNAUTHENTICATED", reason, message);

export const conflict = (reason: string, message: string) => new AppError("ABORTED", reason, message);

export const alreadyExists = (reason: string, message: string, fields?: FieldErrors) =>
  new AppError("ALREADY_EXISTS", reason, message, fields ? { fields } : {});

export const unavailable = (reason: string, message: string, cause?: unknown, retryAfterSeconds = 5) =>
  new AppError("UNAVAILABLE", reason, message, { cause, retryAfterSeconds });

/** Something that should not happen: INTERNAL / 500 with a safe message; the cause is for the log only. */
export function internal(cause: unknown): AppError {
  return new AppError("INTERNAL", "INTERNAL", "500 Internal Server Error", { cause });
}
