import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";

const REQUEST_ID_HEADER = "X-Request-Id";
const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Accepts a caller's sane `X-Request-Id` or makes one; echoes it and keeps it in res.locals. */
export function requestId() {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get(REQUEST_ID_HEADER);
    const id = incoming && SANE_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  };
}
