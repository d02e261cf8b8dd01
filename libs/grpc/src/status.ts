import { Metadata, type ServiceError, status } from "@grpc/grpc-js";
import { AppError, ERROR_CODES, type ErrorCode, type FieldErrors } from "@tocsin/core";
import { ERROR_FIELDS_KEY, ERROR_REASON_KEY, RETRY_AFTER_KEY, readMetadata } from "./metadata.js";

/** The one AppError → gRPC status mapping: the names are gRPC's, so the table is the enum. */
function codeToStatus(code: ErrorCode): status {
  return status[code];
}

function statusToCode(s: status): ErrorCode {
  const name = status[s] as ErrorCode | undefined;
  return name && (ERROR_CODES as readonly string[]).includes(name) ? name : "UNKNOWN";
}

export interface GrpcErrorPayload {
  code: status;
  details: string;
  metadata: Metadata;
}

export function toGrpcError(err: AppError): GrpcErrorPayload {
  const metadata = new Metadata();
  metadata.set(ERROR_REASON_KEY, err.reason);
  if (err.fields) metadata.set(ERROR_FIELDS_KEY, JSON.stringify(err.fields));
  if (err.retryAfterSeconds !== undefined) metadata.set(RETRY_AFTER_KEY, String(err.retryAfterSeconds));
  return { code: codeToStatus(err.code), details: err.message, metadata };
}

const TRANSPORT_MESSAGES: Partial<Record<ErrorCode, string>> = {
  UNAVAILABLE: "503 Service Unavailable",
  DEADLINE_EXCEEDED: "503 Service Unavailable",
  CANCELLED: "Request cancelled",
};

/**
 * The single boundary where a gRPC failure becomes a typed error. Errors raised by a Tocsin
 * service carry their reason; transport failures (no reason) get one named after the code.
 */
export function fromGrpcError(err: ServiceError, target: string): AppError {
  const code = statusToCode(err.code);
  const reason = readMetadata(err.metadata, ERROR_REASON_KEY);
  const fieldsText = readMetadata(err.metadata, ERROR_FIELDS_KEY);
  const retry = readMetadata(err.metadata, RETRY_AFTER_KEY);
  let fields: FieldErrors | undefined;
  if (fieldsText) {
    try {
      fields = JSON.parse(fieldsText) as FieldErrors;
    } catch {
      fields = undefined;
    }
  }
  if (reason) {
    return new AppError(code, reason, err.details, {
      ...(fields ? { fields } : {}),
      ...(retry ? { retryAfterSeconds: Number(retry) } : {}),
      cause: err,
    });
  }
  // No reason: the failure happened in the transport, not in the service's code.
  const transportCode: ErrorCode = code === "DEADLINE_EXCEEDED" || code === "CANCELLED" ? "UNAVAILABLE" : code;
  return new AppError(transportCode, `${target.toUpperCase()}_${code}`, TRANSPORT_MESSAGES[code] ?? "500 Internal Server Error", {
    cause: err,
    ...(transportCode === "UNAVAILABLE" ? { retryAfterSeconds: 5 } : {}),
  });
}

/** An AppError as a message field (a per-item failure inside a stream: `alert.v1.ItemError`). */
export interface ItemErrorMessage {
  code: number;
  reason: string;
  message: string;
  fieldsJson: string;
  retryAfterSeconds: number;
}

/** What a stream's item carries where a unary call would have failed with `toGrpcError(err)`. */
export function toItemError(err: AppError): ItemErrorMessage {
  return {
    code: codeToStatus(err.code),
    reason: err.reason,
    message: err.message,
    fieldsJson: err.fields ? JSON.stringify(err.fields) : "",
    retryAfterSeconds: err.retryAfterSeconds ?? 0,
  };
}

/** The AppError a per-item failure stands for: the same one the unary call would have thrown. */
export function fromItemError(item: ItemErrorMessage): AppError {
  let fields: FieldErrors | undefined;
  if (item.fieldsJson) {
    try {
      fields = JSON.parse(item.fieldsJson) as FieldErrors;
    } catch {
      fields = undefined;
    }
  }
  return new AppError(statusToCode(item.code), item.reason, item.message, {
    ...(fields ? { fields } : {}),
    ...(item.retryAfterSeconds > 0 ? { retryAfterSeconds: item.retryAfterSeconds } : {}),
  });
}

/**
 * A transport failure seen by the client itself (a stream that broke, a deadline that passed
 * with no answer): the AppError a unary call would have thrown for that status.
 */
export function transportError(code: "UNAVAILABLE" | "DEADLINE_EXCEEDED", target: string, details: string): AppError {
  return fromGrpcError(Object.assign(new Error(details), { code: status[code], details, metadata: new Metadata() }), target);
}
