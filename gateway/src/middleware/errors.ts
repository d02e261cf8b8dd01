import { AppError, type Logger } from "@tocsin/core";
import type { NextFunction, Request, Response } from "express";
import { loggerOf } from "../http/context.js";
import { toHttpError } from "../http-errors.js";
import { fromBodyParserError } from "./body-parsers.js";

/** Unknown route anywhere: 404 `{"error":"404 Not Found"}`. */
export function notFoundHandler() {
  return (_req: Request, _res: Response, next: NextFunction) => {
    next(new AppError("NOT_FOUND", "ROUTE_NOT_FOUND", "404 Not Found"));
  };
}

/** Last in the chain: every error leaves through the one mapping in http-errors.ts. */
export function errorHandler(root: Logger) {
  return (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const error = fromBodyParserError(err);
    const mapped = toHttpError(error);
    const logger = loggerOf(res, root);
    if (mapped.unexpected || !(error instanceof AppError)) {
      logger.error({ err: error instanceof AppError && error.cause !== undefined ? error.cause : error }, "unexpected error");
    } else if (mapped.status === 503) {
      const detail = error.cause instanceof Error ? error.cause.message : undefined;
      logger.warn({ reason: error.reason, detail }, "dependency unavailable");
    } else {
      logger.debug({ code: error.code, reason: error.reason }, "request rejected");
    }
    res.status(mapped.status).set(mapped.headers).json(mapped.body);
  };
}
