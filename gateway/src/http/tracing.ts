import type { IncomingMessage, ServerResponse } from "node:http";
import type { TraceParent } from "@tocsin/core";
import type { Tracing } from "@tocsin/telemetry";
import type { NextFunction, Request, Response } from "express";
import { routeLabel } from "../middleware/route-label.js";
import type { EndpointKind } from "../webhook/match.js";

/** http.route of the webhook's three URL shapes (PRODUCT.md section 5). */
export const WEBHOOK_ROUTES: Record<EndpointKind, string> = {
  http: "/:full_path/alerts/notify/:name/:endpoint_identifier",
  prometheus: "/:full_path/prometheus/alerts/notify",
  http_legacy: "/:full_path/alerts/notify",
};

/**
 * The server span of one HTTP request, per the OpenTelemetry HTTP conventions: a child of the
 * caller's W3C `traceparent` header when it sends one, else a new trace. It ends when the
 * response finishes (or the connection closes first), named `<method> <route>` with the route
 * template, never the raw URL. Only the path is recorded (never the query string, which may hold
 * `private_token`), and no header. Returns the span for the request's CallContext (`trace`).
 * One function for every handler to call once at its start: the express middleware below and
 * the webhook's node:http handler (webhook/handler.ts).
 */
export function startRequestSpan(tracing: Tracing, req: IncomingMessage, res: ServerResponse, route: () => string): TraceParent {
  const method = req.method ?? "GET";
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const span = tracing.startSpan(method, {
    kind: "server",
    parent: tracing.extract({ traceparent: header("traceparent"), tracestate: header("tracestate") }) ?? null,
    attributes: {
      "http.request.method": method,
      "url.path": (req.url ?? "/").split("?")[0] as string,
      "url.scheme": "http",
    },
  });
  const finish = (aborted: boolean) => {
    const template = route();
    span.updateName(`${method} ${template}`);
    span.setAttributes({ "http.route": template, "http.response.status_code": res.statusCode });
    span.end(aborted ? "aborted" : res.statusCode >= 500 ? String(res.statusCode) : undefined);
  };
  res.once("finish", () => finish(false));
  res.once("close", () => finish(!res.writableFinished));
  return span.parent;
}

/** Probes and scrapes: polled every few seconds by machines, they would bury the traces of requests. */
const UNTRACED_PATHS = new Set(["/-/health", "/-/readiness", "/metrics"]);

/**
 * Express: a server span for every request but probes and scrapes (route: the matched pattern),
 * in res.locals.trace for the call contexts.
 */
export function traceRequests(tracing: Tracing) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!UNTRACED_PATHS.has(req.path)) res.locals.trace = startRequestSpan(tracing, req, res, () => routeLabel(req));
    next();
  };
}
