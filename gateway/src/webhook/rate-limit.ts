import type { ServerResponse } from "node:http";
import { AppError } from "@tocsin/core";
import type { alertV1 } from "@tocsin/proto";
import { Counter, type Registry } from "prom-client";

/**
 * `RateLimit-Limit` (requests per minute), `RateLimit-Remaining` and `RateLimit-Reset` (seconds)
 * of the current burst window, and `RateLimit-Policy` saying the window: `<burst>;w=<seconds>`.
 * Every figure is alert-service's limiter's own (one decision, carried in the answer).
 */
export function setRateLimitHeaders(res: ServerResponse, state: alertV1.RateLimitState): void {
  res.setHeader("RateLimit-Limit", String(state.limitPerMinute));
  res.setHeader("RateLimit-Remaining", String(state.remaining));
  res.setHeader("RateLimit-Reset", String(state.resetSeconds));
  res.setHeader("RateLimit-Policy", `${state.burst};w=${state.windowSeconds}`);
}

/** 429 with Retry-After: the integration is over its budget (PRODUCT.md section 10). */
export function rateLimited(state: alertV1.RateLimitState): AppError {
  return new AppError(
    "RESOURCE_EXHAUSTED",
    "WEBHOOK_RATE_LIMITED",
    `429 Too Many Requests: this integration accepts ${state.limitPerMinute} requests per minute ` +
      `(bursts of ${state.burst}); retry in ${state.resetSeconds} seconds. ` +
      "Recoveries (end_time, Alertmanager resolved) have a reserve of their own.",
    { retryAfterSeconds: state.resetSeconds },
  );
}

/** `tocsin_webhook_throttled_requests_total{project_id, kind}`: kind `alert` or `recovery`. */
export function createThrottleCounter(registry: Registry): (projectId: number, recovery: boolean) => void {
  const counter = new Counter({
    name: "tocsin_webhook_throttled_requests_total",
    help: "Webhook requests refused by an integration's rate limit, per project",
    labelNames: ["project_id", "kind"] as const,
    registers: [registry],
  });
  return (projectId, recovery) => counter.inc({ project_id: String(projectId), kind: recovery ? "recovery" : "alert" });
}
