import type { NextFunction, Request, Response } from "express";
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import { routeLabel } from "./route-label.js";

/** Counts and times one finished request of a fixed method and route, by status. */
type RouteRecorder = (status: number, seconds: number) => void;

export interface HttpMetrics {
  registry: Registry;
  middleware: (req: Request, res: Response, next: NextFunction) => void;
  /**
   * A recorder for requests served outside express (the webhook): the same two metrics, with
   * label children bound once per status, so that a request costs two increments.
   */
  route(method: string, route: string): RouteRecorder;
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
  const route = (method: string, routeName: string): RouteRecorder => {
    const bound = new Map<number, { count: Counter.Internal; time: Histogram.Internal<(typeof labelNames)[number]> }>();
    return (status, seconds) => {
      let children = bound.get(status);
      if (!children) {
        const labels = { method, route: routeName, status: String(status) };
        children = { count: requests.labels(labels), time: duration.labels(labels) };
        bound.set(status, children);
      }
      children.count.inc();
      children.time.observe(seconds);
    };
  };
  return { registry, middleware, route };
}
