import { uuidV7 } from "@tocsin/core";
import type { NextFunction, Request, Response } from "express";

const REQUEST_ID_HEADER = "X-Request-Id";
const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** A caller's sane `X-Request-Id` (1–128 of `[A-Za-z0-9._-]`), or a new time-ordered UUID (see uuidV7). */
export function requestIdFrom(incoming: string | string[] | undefined): string {
  return typeof incoming === "string" && SANE_ID.test(incoming) ? incoming : uuidV7();
}

/** Accepts a caller's sane `X-Request-Id` or makes one; echoes it and keeps it in res.locals. */
export function requestId() {
  return (req: Request, res: Response, next: NextFunction) => {
    const id = requestIdFrom(req.get(REQUEST_ID_HEADER));
    res.locals.requestId = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  };
}
