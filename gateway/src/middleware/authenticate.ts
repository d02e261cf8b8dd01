import { AppError, safeEqual } from "@tocsin/core";
import type { NextFunction, Request, Response } from "express";
import { clientAddress } from "../http/client-address.js";
import type { HttpPrincipal } from "../http/context.js";
import { anonymousContext } from "../http/context.js";
import { type HttpError, insufficientScopeError, invalidTokenError, toHttpError } from "../http-errors.js";
import type { CredentialThrottle } from "../protect/credential-throttle.js";
import { CSRF_HEADER, sessionTokenOf } from "../session/cookie.js";
import type { PrincipalCache } from "./principal-cache.js";

const READ_METHODS = new Set(["GET", "HEAD"]);
/** Methods a session may use without its CSRF token. */
const CSRF_SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export const INVALID_CSRF_MESSAGE = "403 Forbidden: invalid CSRF token";

/** The personal access token of a request: `PRIVATE-TOKEN`, `Authorization: Bearer`, or `?private_token=`. */
function tokenOf(req: Request): string | undefined {
  const header = req.get("private-token");
  if (header) return header.trim();
  const authorization = req.get("authorization");
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  if (bearer?.[1]) return bearer[1];
  const query = (req.query as Record<string, unknown>).private_token;
  return typeof query === "string" && query ? query : undefined;
}

/** True when the request carries the session's CSRF token (compared in constant time). */
export function csrfMatches(req: Request, csrfToken: string): boolean {
  const sent = req.get(CSRF_HEADER);
  return Boolean(sent && csrfToken) && safeEqual(Buffer.from(sent ?? ""), Buffer.from(csrfToken));
}

/**
 * Resolves the caller through auth-service (cached, see principal-cache.ts): a personal access
 * token first, else the console's session cookie. A token's scope is enforced (`read_api` may
 * only read); a session's unsafe requests must carry its CSRF token. Sets res.locals.principal.
 * A client address past its failed authentications is refused first (429); each wrong token or
 * session counts against it.
 */
export function authenticate(cache: PrincipalCache, throttle: CredentialThrottle) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const address = clientAddress(req);
    try {
      await throttle.check(address);
    } catch (err) {
      return send(res, toHttpError(err));
    }
    const token = tokenOf(req);
    const sessionToken = token ? undefined : sessionTokenOf(req);
    if (!token && !sessionToken) {
      return send(res, toHttpError(new AppError("UNAUTHENTICATED", "TOKEN_MISSING", "401 Unauthorized")));
    }
    const ctx = anonymousContext(res);
    let principal: HttpPrincipal;
    try {
      if (token) {
        const p = await cache.authenticate(token, ctx);
        principal = { userId: p.userId, username: p.username, isAdmin: p.isAdmin, scopes: p.scopes, tokenId: p.tokenId };
      } else {
        const s = await cache.authenticateSession(sessionToken as string, ctx);
        if (!CSRF_SAFE_METHODS.has(req.method) && !csrfMatches(req, s.csrfToken)) {
          return send(res, toHttpError(new AppError("PERMISSION_DENIED", "CSRF_INVALID", INVALID_CSRF_MESSAGE)));
        }
        const p = s.principal;
        principal = { userId: p.userId, username: p.username, isAdmin: p.isAdmin, scopes: p.scopes, tokenId: 0 };
      }
    } catch (err) {
      if (err instanceof AppError && err.code === "UNAUTHENTICATED") await throttle.failed(address);
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
  // PERMISSION_DENIED (a blocked user), UNAVAILABLE and friends: the error handler answers and logs.
  next(err);
}

function send(res: Response, error: HttpError) {
  res.status(error.status).set(error.headers).json(error.body);
}
