import type { Logger } from "@tocsin/core";
import type { NextFunction, Request, Response } from "express";
import { requestIdOf } from "../http/context.js";
import { routeLabel } from "./route-label.js";

/**
 * One child logger per request (res.locals.logger) and one line per finished request. Only the
 * path is logged, never the query string (it may hold `private_token`), and never a header.
 */
export function accessLog(root: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const logger = root.child({ requestId: requestIdOf(res) });
    res.locals.logger = logger;
    const path = req.originalUrl.split("?")[0];
    res.on("finish", () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const principal = res.locals.principal as { userId?: number } | undefined;
      const line = {
        method: req.method,
        path,
        route: routeLabel(req),
        status: res.statusCode,
        durationMs: Math.round(durationMs * 10) / 10,
        ...(principal?.userId !== undefined ? { userId: principal.userId } : {}),
      };
      if (res.statusCode >= 500) logger.warn(line, "request failed");
      else logger.info(line, "request completed");
    });
    next();
  };
}
