import type { NextFunction, Request, Response } from "express";
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import { routeLabel } from "./route-label.js";

export interface HttpMetrics {
  registry: Registry;
  middleware: (req: Request, res: Response, next: NextFunction) => void;
}

/** Process metrics plus `http_requests_total` and `http_request_duration_seconds`, per app. */
export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ["method", "route", "status"] as const;
  const requests = new Counter({ name: "http_requests_total", help: "HTTP requests served", labelNames, registers: [registry] });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration in seconds",
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const middleware = (req: Request, res: Response, next: NextFunction) => {
    const stop = duration.startTimer();
    res.on("finish", () => {
      const labels = { method: req.method, route: routeLabel(req), status: String(res.statusCode) };
      requests.inc(labels);
      stop(labels);
    });
    next();
  };
  return { registry, middleware };
}
