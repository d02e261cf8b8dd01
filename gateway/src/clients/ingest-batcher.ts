import { randomUUID } from "node:crypto";
import { AppError, type CallContext } from "@tocsin/core";
import { createBatchStream, fromItemError, traceItemCall } from "@tocsin/grpc";
import { alertV1 } from "@tocsin/proto";
import type { Tracing } from "@tocsin/telemetry";
import type { AlertClient, IngestPort } from "../deps.js";

/** The ingest port on the IngestAlerts stream: `submit` is the unary `ingestAlert`, micro-batched. */
export interface IngestBatcher extends IngestPort {
  /** Calls without an answer yet. */
  inFlight(): number;
  close(): void;
}

export interface IngestBatcherOptions {
  /** Deadline of an item when the caller gives none (the client's RPC timeout). */
  timeoutMs: number;
  /** Streams kept open: one per replica of a comma-separated address list. */
  streams: number;
  /** Most items in one message. */
  maxBatch?: number;
  /** With tracing on, each item is a call of its own in the trace (client span, `traceparent` in the item). */
  tracing?: Tracing;
}

const INGEST_ALERTS = alertV1.AlertServiceService.ingestAlerts.path;
/** How long calls stay unary after alert-service answered that it has no IngestAlerts (an older version). */
const UNARY_FALLBACK_MS = 60_000;

function answerOf(result: alertV1.IngestAlertsResult): alertV1.IngestAlertResponse | AppError {
  if (result.accepted) return result.accepted;
  if (result.error) return fromItemError(result.error);
  return new AppError("INTERNAL", "INGEST_RESULT_EMPTY", "500 Internal Server Error");
}

/**
 * The webhook's ingest call over one long-lived IngestAlerts stream per replica: the posts of
 * one event-loop turn travel as one message, and each call settles from its own result (the
 * answer, or the AppError the unary call would have thrown). A broken stream fails its calls
 * with UNAVAILABLE (the webhook answers 503, as for the unary call) and the next call opens a new
 * stream, on a healthy replica when the address names several. An alert-service without the
 * stream (an older version, during a rolling upgrade) answers UNIMPLEMENTED: the call is made
 * unary instead, and so are the calls of the next minute.
 */
export function createIngestBatcher(alert: AlertClient, options: IngestBatcherOptions): IngestBatcher {
  const stream = createBatchStream<alertV1.IngestAlertsItem, alertV1.IngestAlertsResult, alertV1.IngestAlertResponse>({
    open: () => alert.duplex("ingestAlerts", { requestId: `ingest-stream-${randomUUID()}` }),
    target: "alert",
    settle: answerOf,
    streams: options.streams,
    ...(options.maxBatch ? { maxBatch: options.maxBatch } : {}),
  });
  let unaryUntil = 0;
  return {
    submit(request: alertV1.IngestAlertRequest, ctx: CallContext, opts?: { timeoutMs?: number }) {
      if (unaryUntil > Date.now()) return alert.ingestAlert(request, ctx, opts);
      const own = opts?.timeoutMs ?? options.timeoutMs;
      const timeoutMs = Math.max(1, ctx.deadlineMs ? Math.min(own, ctx.deadlineMs - Date.now()) : own);
      const deadline = Date.now() + timeoutMs;
      return traceItemCall(options.tracing, INGEST_ALERTS, ctx, (trace) =>
        stream.call(
          { requestId: ctx.requestId, userId: ctx.principal?.userId ?? 0, timeoutMs, alert: request, ...trace },
          timeoutMs,
        ),
      ).catch((err: unknown) => {
        if (!(err instanceof AppError) || err.code !== "UNIMPLEMENTED") throw err;
        unaryUntil = Date.now() + UNARY_FALLBACK_MS;
        return alert.ingestAlert(request, ctx, { timeoutMs: Math.max(1, deadline - Date.now()) });
      });
    },
    inFlight: () => stream.inFlight(),
    close: () => stream.close(),
  };
}
