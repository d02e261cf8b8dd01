import { AppError } from "@tocsin/core";
import express, { type Request, type Response, Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { anonymousContext } from "../http/context.js";
import { requiredString } from "../http/params.js";
import { csrfMatches, INVALID_CSRF_MESSAGE } from "../middleware/authenticate.js";
import { BODY_LIMIT } from "../middleware/body-parsers.js";
import type { PrincipalCache, SessionAnswer } from "../middleware/principal-cache.js";
import { must } from "../presenters/must.js";
import { toUserJson } from "../presenters/user.js";
import { clearSessionCookie, sessionTokenOf, setSessionCookie } from "./cookie.js";

const unauthorized = () => new AppError("UNAUTHENTICATED", "SESSION_INVALID", "401 Unauthorized");

/**
 * The console's sessions (PRODUCT.md section 8): `POST /-/session` signs in, `GET` answers who is
 * signed in with the CSRF token, `DELETE` signs out. Sign-in reads a JSON body only, so that a
 * cross-site form cannot sign a browser in to someone else's account.
 */
export function sessionRoutes(deps: GatewayDeps, cache: PrincipalCache): Router {
  const router = Router();
  const ctx = anonymousContext;
  router.use("/-/session", (_req, res, next) => {
    res.set("Cache-Control", "no-store");
    next();
  });

  router.post("/-/session", express.json({ limit: BODY_LIMIT, strict: true }), async (req, res) => {
    const body = (req.body && typeof req.body === "object" ? req.body : {}) as Record<string, unknown>;
    const request = { login: requiredString(body, "login"), password: requiredString(body, "password") };
    const created = await deps.auth.createSession(request, ctx(res));
    const previous = sessionTokenOf(req);
    if (previous) await endSession(previous, res);
    setSessionCookie(res, deps.config, created.sessionToken);
    res.json({ user: toUserJson(must(created.user, "user")), csrf_token: created.csrfToken });
  });

  router.get("/-/session", async (req, res) => {
    const session = await currentSession(req, res);
    if (!session) throw unauthorized();
    // Sliding: the browser keeps the cookie for another 7 days of idleness.
    setSessionCookie(res, deps.config, sessionTokenOf(req) as string);
    res.json({ user: toUserJson(session.user), csrf_token: session.csrfToken });
  });

  router.delete("/-/session", async (req, res) => {
    const session = await currentSession(req, res);
    if (session && !csrfMatches(req, session.csrfToken)) {
      throw new AppError("PERMISSION_DENIED", "CSRF_INVALID", INVALID_CSRF_MESSAGE);
    }
    if (session) await endSession(sessionTokenOf(req) as string, res);
    clearSessionCookie(res, deps.config);
    res.status(204).end();
  });

  /** The cookie's session, or null (and the cookie cleared) when it is missing or over. */
  async function currentSession(req: Request, res: Response): Promise<SessionAnswer | null> {
    const token = sessionTokenOf(req);
    if (!token) return null;
    try {
      return await cache.authenticateSession(token, ctx(res));
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== "UNAUTHENTICATED") throw err;
      clearSessionCookie(res, deps.config);
      return null;
    }
  }

  async function endSession(token: string, res: Response): Promise<void> {
    await deps.auth.deleteSession({ sessionToken: token }, ctx(res));
    cache.forgetSession(token);
  }

  return router;
}
