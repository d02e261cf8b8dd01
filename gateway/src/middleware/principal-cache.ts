import { AppError, type CallContext, type Logger, sha256Hex } from "@tocsin/core";
import { createWatchedCache, type WatchedCache } from "@tocsin/grpc";
import type { authV1 } from "@tocsin/proto";
import type { AuthClient } from "../deps.js";

export interface PrincipalCacheOptions {
  auth: AuthClient;
  logger: Logger;
  /** How long a principal is reused at most (default 30 s). */
  ttlMs?: number;
  /** Most tokens kept; the least recently used go first (default 10,000). */
  maxEntries?: number;
  /** First reconnect delay of the watch stream; doubles up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  now?: () => number;
}

export interface PrincipalCache {
  /** auth-service's AuthenticateToken answer for `token`; its errors pass through unchanged. */
  authenticate(token: string, ctx: CallContext): Promise<authV1.Principal>;
  /** auth-service's AuthenticateSession answer for a session cookie; errors pass through unchanged. */
  authenticateSession(sessionToken: string, ctx: CallContext): Promise<SessionAnswer>;
  /** Drops the cached answer of a session this gateway just ended. */
  forgetSession(sessionToken: string): void;
  /** True while the WatchAccessChanges stream is up (principals are cached only then). */
  watching(): boolean;
  size(): number;
  close(): void;
}

/** A console session as the gateway needs it. */
export interface SessionAnswer {
  principal: authV1.Principal;
  csrfToken: string;
  user: authV1.User;
}

// Sessions and tokens share one cache: session answers are tagged with the negated session id.
const sessionKey = (sessionToken: string) => `session:${sha256Hex(sessionToken)}`;

/** Midnight UTC starting the day `YYYY-MM-DD`: the token no longer works from then on. */
export function expiryMs(expiresAt: string): number {
  return expiresAt ? Date.parse(`${expiresAt}T00:00:00Z`) : Number.POSITIVE_INFINITY;
}

/**
 * Successful AuthenticateToken (and AuthenticateSession) answers, keyed by the token's SHA-256 (the plain token is never
 * kept), for at most `ttlMs` and never past the token's expiry, in a bounded LRU. auth-service's
 * WatchAccessChanges stream drops a token the moment it is revoked, and everything on `all`
 * (its first message, so also after every reconnect, e.g. an auth-service restart that rotated
 * ADMIN_TOKEN); while the stream is down nothing is cached. Failures are never cached.
 */
export function createPrincipalCache(options: PrincipalCacheOptions): PrincipalCache {
  const { auth } = options;
  const cache: WatchedCache = createWatchedCache<authV1.WatchAccessChangesResponse>({
    open: () => auth.stream("watchAccessChanges", {}, { requestId: "gateway-principal-watch" }),
    waitForReady: (ms) => auth.waitForReady(ms),
    logger: options.logger,
    name: "principal cache",
    minBackoffMs: options.minBackoffMs,
    maxBackoffMs: options.maxBackoffMs,
    ttlMs: options.ttlMs,
    maxEntries: options.maxEntries,
    now: options.now,
    staleOn: (e) => (e.all ? "all" : new Set([...e.revokedTokenIds, ...e.endedSessionIds.map((id) => -id)])),
  });

  const load = async (token: string, ctx: CallContext) => {
    const { principal } = await auth.authenticateToken({ token }, ctx);
    if (!principal) throw new AppError("UNAUTHENTICATED", "TOKEN_INVALID", "401 Unauthorized");
    return principal;
  };

  const loadSession = async (sessionToken: string, ctx: CallContext): Promise<SessionAnswer> => {
    const { principal, csrfToken, user } = await auth.authenticateSession({ sessionToken }, ctx);
    if (!principal || !user) throw new AppError("UNAUTHENTICATED", "SESSION_INVALID", "401 Unauthorized");
    return { principal, csrfToken, user };
  };

  return {
    authenticateSession: (sessionToken, ctx) =>
      cache.get(sessionKey(sessionToken), () => loadSession(sessionToken, ctx), { tag: (s) => -(s.principal.sessionId ?? 0) }),
    forgetSession: (sessionToken) => cache.forget(sessionKey(sessionToken)),
    authenticate: (token, ctx) =>
      cache.get(sha256Hex(token), () => load(token, ctx), {
        tag: (p) => p.tokenId,
        notAfter: (p) => expiryMs(p.expiresAt),
      }),
    watching: () => cache.live(),
    size: () => cache.size(),
    close: () => cache.close(),
  };
}
