import type { Logger } from "@tocsin/core";
import type { Refusal } from "./respond.js";

/** Most refusal lines (4xx other than 429) written per second; the rest are only counted. */
const REFUSAL_LINES_PER_SECOND = 10;

/** One finished webhook request, as the log sees it. */
interface WebhookLogEntry {
  requestId: string;
  /** The request path (never the query string). */
  path: string;
  status: number;
  durationMs: number;
  /** Set when the request was refused: its reason, and the error when it was unexpected (5xx). */
  refusal?: Refusal;
  error?: unknown;
}

export interface WebhookLog {
  request(entry: WebhookLogEntry): void;
  /** Writes the summary of the interval in progress and stops the timer. */
  close(): void;
}

/** Route label of the webhook's access lines and metrics (the pattern its express route had). */
export const WEBHOOK_ROUTE = String(/\/alerts\/notify/);

/**
 * The webhook's access log (README "Logging"), cheap under an alert storm:
 * - `summarySeconds` 0: one line per request, as the rest of the gateway writes (info; 5xx warn).
 * - otherwise: 5xx always (error with the cause when unexpected, else warn); other refusals except
 *   429 at info, at most 10 a second; accepted requests and 429s only counted; every
 *   `summarySeconds` one info line `webhook requests` with the counts by status, the longest
 *   duration and that request's id and path (nothing when there was no request). At debug level
 *   every request also gets its own debug line.
 */
export function createWebhookLog(
  logger: Logger,
  summarySeconds: number,
  nowMs: () => number = performance.now.bind(performance),
): WebhookLog {
  let counts = new Map<number, number>();
  let total = 0;
  let slowest: WebhookLogEntry | undefined;
  let unlogged = 0;
  let second = 0;
  let linesThisSecond = 0;
  const line = (e: WebhookLogEntry) => ({
    requestId: e.requestId,
    method: "POST",
    path: e.path,
    route: WEBHOOK_ROUTE,
    status: e.status,
    durationMs: Math.round(e.durationMs * 10) / 10,
    ...(e.refusal ? { reason: e.refusal.reason } : {}),
  });
  const flush = () => {
    if (total === 0) return;
    const statuses = Object.fromEntries(counts);
    const longest = slowest && { requestId: slowest.requestId, path: slowest.path, durationMs: line(slowest).durationMs };
    logger.info(
      { intervalSeconds: summarySeconds, requests: total, statuses, unloggedRefusals: unlogged, longest },
      "webhook requests",
    );
    counts = new Map();
    total = 0;
    slowest = undefined;
    unlogged = 0;
  };
  const timer = summarySeconds > 0 ? setInterval(flush, summarySeconds * 1000) : undefined;
  timer?.unref();
  const refusalLine = (e: WebhookLogEntry) => {
    const now = Math.floor(nowMs() / 1000);
    if (now !== second) {
      second = now;
      linesThisSecond = 0;
    }
    if (linesThisSecond >= REFUSAL_LINES_PER_SECOND) return void unlogged++;
    linesThisSecond++;
    logger.info(line(e), "request refused");
  };

  return {
    request(e) {
      if (e.refusal?.unexpected) logger.error({ ...line(e), err: e.error }, "webhook failed");
      else if (e.status >= 500) logger.warn(line(e), "request failed");
      else if (summarySeconds === 0) logger.info(line(e), "request completed");
      else if (e.status >= 400 && e.status !== 429) refusalLine(e);
      else if (logger.isLevelEnabled("debug")) logger.debug(line(e), "request completed");
      if (summarySeconds === 0) return;
      total++;
      counts.set(e.status, (counts.get(e.status) ?? 0) + 1);
      if (!slowest || e.durationMs > slowest.durationMs) slowest = e;
    },
    close() {
      if (timer) clearInterval(timer);
      flush();
    },
  };
}
