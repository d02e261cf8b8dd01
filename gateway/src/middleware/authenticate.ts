import { AppError } from "@tocsin/core";
import type { NextFunction, Request, Response } from "express";
import type { GatewayDeps } from "../deps.js";
import type { HttpPrincipal } from "../http/context.js";
import { requestIdOf } from "../http/context.js";
import { type HttpError, insufficientScopeError, invalidTokenError, toHttpError } from "../http-errors.js";
import { createPrincipalCache } from "./principal-cache.js";

const READ_METHODS = new Set(["GET", "HEAD"]);

/** The personal access token of a request: `PRIVATE-TOKEN`, `Authorization: Bearer`, or `?private_token=`. */
export function tokenOf(req: Request): string | undefined {
  const header = req.get("private-token");
  if (header) return header.trim();
  const authorization = req.get("authorization");
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  if (bearer?.[1]) return bearer[1];
  const query = (req.query as Record<string, unknown>).private_token;
  return typeof query === "string" && query ? query : undefined;
}

/**
 * Resolves the token to a principal through auth-service (cached, see principal-cache.ts) and
 * enforces the token's scope: `read_api` may only read. Sets res.locals.principal.
 */
export function authenticate(deps: GatewayDeps) {
  const cache = createPrincipalCache({ auth: deps.auth, logger: deps.logger });
  deps.closers.push(() => cache.close());
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = tokenOf(req);
    if (!token) return send(res, toHttpError(new AppError("UNAUTHENTICATED", "TOKEN_MISSING", "401 Unauthorized")));
    let principal: HttpPrincipal;
    try {
      const p = await cache.authenticate(token, { requestId: requestIdOf(res) });
      principal = { userId: p.userId, username: p.username, isAdmin: p.isAdmin, scopes: p.scopes, tokenId: p.tokenId };
    } catch (err) {
      return rejected(res, next, err);
    }
    res.locals.principal = principal;
    const allowed = READ_METHODS.has(req.method) ? ["api", "read_api"] : ["api"];
    if (!principal.scopes.some((s) => allowed.includes(s))) {
      return send(res, insufficientScopeError(READ_METHODS.has(req.method) ? "read_api api" : "api"));
    }
    next();
  };
}

function rejected(res: Response, next: NextFunction, err: unknown) {
  if (err instanceof AppError && err.code === "UNAUTHENTICATED") {
    if (err.reason === "TOKEN_EXPIRED" || err.reason === "TOKEN_REVOKED") return send(res, invalidTokenError(err.message));
    return send(res, toHttpError(new AppError("UNAUTHENTICATED", err.reason, "401 Unauthorized")));
  }
  // UNAVAILABLE and friends: the error handler answers (503 + Retry-After) and logs.
  next(err);
}

function send(res: Response, error: HttpError) {
  res.status(error.status).set(error.headers).json(error.body);
}
