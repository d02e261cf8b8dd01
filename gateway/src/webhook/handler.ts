import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError, type CallContext } from "@tocsin/core";
import type { GatewayDeps } from "../deps.js";
import { createClientAddress } from "../http/client-address.js";
import { startRequestSpan, WEBHOOK_ROUTES } from "../http/tracing.js";
import type { HttpMetrics } from "../middleware/metrics.js";
import { requestIdFrom } from "../middleware/request-id.js";
import type { CredentialThrottle } from "../protect/credential-throttle.js";
import { createEndpointCache } from "./endpoint-cache.js";
import { type IntakeDeps, receive } from "./intake.js";
import { matchWebhookPath, requestPath, type WebhookRoute } from "./match.js";
import { createThrottleCounter } from "./rate-limit.js";
import { type Refusal, sendWebhookError } from "./respond.js";
import { createWebhookLog, WEBHOOK_ROUTE } from "./webhook-log.js";

/** Takes a request when it is a webhook post (true), else leaves it alone (false). */
export type WebhookHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The alert webhook receiver (PRODUCT.md sections 5 and 10) on plain node:http, in front of the
 * express app: `POST` to one of the three webhook URL shapes (match.ts) is answered here, without
 * express, its middleware or a per-request log line; anything else is left to express. It adds
 * what the app's middleware adds to every answer (nosniff, X-Request-Id) and counts into the same
 * `http_requests_total` / `http_request_duration_seconds`.
 */
export function createWebhookHandler(
  deps: GatewayDeps,
  shared: { metrics: HttpMetrics; throttle: CredentialThrottle },
): WebhookHandler {
  const cache = createEndpointCache({ auth: deps.auth, logger: deps.logger });
  const log = createWebhookLog(deps.logger, deps.config.webhookLogSummarySeconds);
  deps.closers.push(
    () => cache.close(),
    () => log.close(),
  );
  const intake: IntakeDeps = {
    ingest: deps.alertIngest,
    cache,
    throttle: shared.throttle,
    throttled: createThrottleCounter(shared.metrics.registry),
  };
  const record = shared.metrics.route("POST", WEBHOOK_ROUTE);
  const addressOf = createClientAddress(deps.config.trustProxy);
  const { tracing } = deps;

  /** One webhook request from its first byte to its answer: where a trace span belongs. */
  async function handleWebhook(req: IncomingMessage, res: ServerResponse, route: WebhookRoute, path: string): Promise<void> {
    const started = performance.now();
    const requestId = requestIdFrom(req.headers["x-request-id"]);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("X-Request-Id", requestId);
    // With tracing on, the request's server span (it ends with the response); off, no span work.
    const ctx: CallContext = tracing
      ? { requestId, trace: startRequestSpan(tracing, req, res, () => WEBHOOK_ROUTES[route.kind]) }
      : { requestId };
    let refusal: Refusal | undefined;
    let error: unknown;
    try {
      await receive(intake, req, res, { route, ctx, address: addressOf(req) });
    } catch (err) {
      error = err instanceof AppError && err.cause !== undefined ? err.cause : err;
      if (res.headersSent) res.destroy();
      else refusal = sendWebhookError(res, err);
    } finally {
      const durationMs = performance.now() - started;
      record(res.statusCode, durationMs / 1000);
      log.request({ requestId, path, status: res.statusCode, durationMs, refusal, error });
    }
  }

  const routes = new Map<string, WebhookRoute>();
  return (req, res) => {
    if (req.method !== "POST") return false;
    const path = requestPath(req.url ?? "/");
    const route = routeOf(routes, path);
    if (!route) return false;
    void handleWebhook(req, res, route, path);
    return true;
  };
}

/** Most webhook paths whose match is remembered: a storm posts to a few URLs again and again. */
const MAX_REMEMBERED_PATHS = 1_000;

/** matchWebhookPath, its matches remembered per path (forgotten all at once when full). */
function routeOf(routes: Map<string, WebhookRoute>, path: string): WebhookRoute | null {
  const known = routes.get(path);
  if (known) return known;
  const route = matchWebhookPath(path);
  if (route) {
    if (routes.size >= MAX_REMEMBERED_PATHS) routes.clear();
    routes.set(path, route);
  }
  return route;
}
