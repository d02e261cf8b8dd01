import type { IncomingMessage } from "node:http";
import { AppError } from "@tocsin/core";
import express, { type NextFunction, type Request, type Response } from "express";

/** The REST body limit (GitLab's default for API bodies is larger; 1 MiB is plenty for this API). */
export const BODY_LIMIT = "1mb";

/**
 * Routes that carry a sample payload (`payload_example`): alert-service refuses samples over
 * 1 MiB with a 400 that says so, so their bodies may be larger than the usual limit (a sample
 * sent as a JSON string is escaped, hence the room).
 */
const SAMPLE_BODY_LIMIT = "3mb";
const SAMPLE_BODY_ROUTE = /\/alert_management\/(?:http_integrations(?:\/[^/?]+)?|payload_fields)(?:[?]|$)/;

function carriesSample(req: Request): boolean {
  return SAMPLE_BODY_ROUTE.test(req.originalUrl ?? req.url ?? "");
}

/**
 * Routes whose body is a document the service itself judges (a test alert payload): they get
 * the raw text, so that invalid JSON earns the service's message, not the parser's.
 */
const RAW_BODY_ROUTE = /\/alert_management\/http_integrations\/[^/?]+\/test_alert(?:[?]|$)/;

function wantsRawBody(req: Request): boolean {
  return RAW_BODY_ROUTE.test(req.originalUrl ?? req.url ?? "");
}

/** The raw text body of a raw-body route (any content type), up to the REST limit. */
export const rawTextBody = express.text({ type: () => true, limit: BODY_LIMIT });

/** JSON (objects and arrays only) and classic form bodies; their failures become AppErrors. */
export function bodyParsers() {
  // body-parser hands the express request to `type` (typed as a bare IncomingMessage).
  const parse =
    (kind: string, sample = false) =>
    (req: IncomingMessage) => {
      const r = req as Request;
      return !wantsRawBody(r) && carriesSample(r) === sample && Boolean(r.is(kind));
    };
  return [
    express.json({ limit: BODY_LIMIT, strict: true, type: parse("json") }),
    express.json({ limit: SAMPLE_BODY_LIMIT, strict: true, type: parse("json", true) }),
    express.urlencoded({ extended: false, limit: BODY_LIMIT, type: parse("urlencoded") }),
    express.urlencoded({ extended: false, limit: SAMPLE_BODY_LIMIT, type: parse("urlencoded", true) }),
    (err: unknown, _req: Request, _res: Response, next: NextFunction) => next(fromBodyParserError(err)),
  ];
}

/** Maps body-parser (and other http-errors style) failures; anything else passes unchanged. */
export function fromBodyParserError(err: unknown): unknown {
  if (err instanceof AppError || !err || typeof err !== "object") return err;
  const e = err as { type?: unknown; status?: unknown; statusCode?: unknown };
  const status = typeof e.status === "number" ? e.status : typeof e.statusCode === "number" ? e.statusCode : undefined;
  if (e.type === "entity.parse.failed") {
    return new AppError("INVALID_ARGUMENT", "INVALID_JSON", "400 Bad request - invalid JSON body", { cause: err });
  }
  if (e.type === "entity.too.large" || status === 413) {
    return new AppError("RESOURCE_EXHAUSTED", "PAYLOAD_TOO_LARGE", "413 Request Entity Too Large", { cause: err });
  }
  if (status === 415 || e.type === "encoding.unsupported" || e.type === "charset.unsupported") {
    return new AppError("INVALID_ARGUMENT", "UNSUPPORTED_ENCODING", "400 Bad request - unsupported body encoding", {
      cause: err,
    });
  }
  if (status !== undefined && status >= 400 && status < 500) {
    // e.g. a malformed percent-encoding in a path parameter, or a body that ended early.
    return new AppError("INVALID_ARGUMENT", "BAD_REQUEST", "400 Bad request", { cause: err });
  }
  return err;
}
