import { AppError, type CallContext, toAppError, unavailable, uuidV7 } from "@tocsin/core";
import { type ServerCallContext, type ServerDuplex, STREAM_DRAINING_REASON, toItemError, traceItem } from "@tocsin/grpc";
import { alertV1, PLAN_NAMES } from "@tocsin/proto";
import type { Tracing } from "@tocsin/telemetry";
import type { IngestRequest, IngestResult } from "../domain/alerts/ingest.js";
import type { AlertsUseCases } from "../domain/alerts/use-cases.js";

type Stream = ServerDuplex<alertV1.IngestAlertsRequest, alertV1.IngestAlertsResponse>;

const INGEST_ALERTS = alertV1.AlertServiceService.ingestAlerts.path;

/** IngestAlert's answer (also each accepted item of IngestAlerts). */
export function toIngestResponse(r: IngestResult): alertV1.IngestAlertResponse {
  return {
    requestId: r.requestId,
    fingerprints: r.fingerprints,
    outcomes: r.outcomes,
    processed: r.processed,
    replayed: r.replayed,
    rateLimit: r.rateLimit,
  };
}

/** The use-case's request of an IngestAlert request (unary, or an item of the stream). */
export function toIngestRequest(alert: alertV1.IngestAlertRequest): IngestRequest {
  const tier = PLAN_NAMES.find((name) => name === alert.tier);
  return {
    projectId: alert.projectId,
    integrationId: alert.integrationId,
    payloadJson: alert.payloadJson,
    waitMs: alert.waitMs,
    ...(alert.idempotencyKey ? { idempotencyKey: alert.idempotencyKey } : {}),
    ...(alert.receivedAt ? { receivedAt: alert.receivedAt } : {}),
    ...(tier ? { tier } : {}),
  };
}

/** The item's own call context: its request id, principal and deadline (not the stream's). */
function contextOf(item: alertV1.IngestAlertsItem, now: number): CallContext {
  const ctx: CallContext = { requestId: item.requestId.slice(0, 128) || uuidV7() };
  if (item.userId > 0) ctx.principal = { userId: item.userId };
  if (item.timeoutMs > 0) ctx.deadlineMs = now + item.timeoutMs;
  return ctx;
}

/** An item refused during a drain: nothing of it was stored, so the client sends it to another replica. */
const draining = () => unavailable(STREAM_DRAINING_REASON, "503 Service Unavailable", undefined, 1);

/**
 * IngestAlerts: every item of a message is ingested at once (so their queue writes join one
 * group commit), and each result is written as soon as it is known, tagged with its `seq`;
 * results that finish in the same turn share one message. A failed item is a result, never the
 * end of the stream. The stream ends (OK) when the client half-closes, or when the server
 * drains, once every item it took is answered; items arriving during a drain are refused.
 *
 * With tracing on, each item is a call of its own in the trace: a server span, the child of the
 * item's `traceparent`, under which the item is ingested (its queue writes included).
 */
export function ingestStreamHandler(useCases: AlertsUseCases, tracing: Tracing | undefined) {
  return (ctx: ServerCallContext, stream: Stream): Promise<void> =>
    new Promise<void>((resolve) => {
      let inFlight = 0;
      let stopping = false;
      let finished = false;
      let out: alertV1.IngestAlertsResult[] = [];
      let scheduled = false;
      const flush = () => {
        scheduled = false;
        if (out.length === 0 || finished) return;
        const results = out;
        out = [];
        stream.write({ results });
      };
      const answer = (result: alertV1.IngestAlertsResult) => {
        if (finished) return;
        out.push(result);
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      };
      const settleIfDone = () => {
        if (!stopping || inFlight > 0 || finished) return;
        flush();
        finished = true;
        resolve();
      };
      // Logged as a unary call's failure would be, under the item's own request id.
      const fail = (item: alertV1.IngestAlertsItem, err: unknown) => {
        const appErr = toAppError(err);
        if (appErr.code === "INTERNAL" || appErr.code === "UNKNOWN" || appErr.code === "DATA_LOSS")
          ctx.logger.child({ requestId: item.requestId }).error({ err: appErr.cause ?? err }, "ingest item failed");
        else
          ctx.logger.debug({ itemRequestId: item.requestId, code: appErr.code, reason: appErr.reason }, "ingest item rejected");
        answer({ seq: item.seq, error: toItemError(appErr) });
      };
      const run = (item: alertV1.IngestAlertsItem, now: number) => {
        if (!item.alert) return fail(item, new AppError("INVALID_ARGUMENT", "ITEM_INVALID", "The item has no alert"));
        inFlight++;
        const alert = item.alert;
        traceItem(tracing, INGEST_ALERTS, item, contextOf(item, now), (ctx) => useCases.ingest(toIngestRequest(alert), ctx))
          .then(
            (r) => answer({ seq: item.seq, accepted: toIngestResponse(r) }),
            (err: unknown) => fail(item, err),
          )
          .finally(() => {
            inFlight--;
            settleIfDone();
          });
      };
      stream.onMessage((message) => {
        const now = Date.now();
        for (const item of message.items) {
          if (stopping) answer({ seq: item.seq, error: toItemError(draining()) });
          else run(item, now);
        }
      });
      stream.onEnd(() => {
        stopping = true;
        settleIfDone();
      });
      stream.onDrain(() => {
        stopping = true;
        settleIfDone();
      });
      stream.onCancel(() => {
        // Nobody listens any more: what is in flight still finishes (its jobs are queued), unanswered.
        stopping = true;
        flush();
        finished = true;
        resolve();
      });
    });
}
