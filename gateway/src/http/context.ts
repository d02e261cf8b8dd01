import type { CallContext, Logger, TraceParent } from "@tocsin/core";
import { unauthenticated } from "@tocsin/core";
import type { Response } from "express";

/** What the authentication middleware learned about the caller (res.locals.principal). */
export interface HttpPrincipal {
  userId: number;
  username: string;
  isAdmin: boolean;
  scopes: string[];
  tokenId: number;
}

/** The request id assigned by the request-id middleware (res.locals.requestId). */
export function requestIdOf(res: Response): string {
  return (res.locals.requestId as string | undefined) ?? "unknown";
}

export function principalOf(res: Response): HttpPrincipal {
  const principal = res.locals.principal as HttpPrincipal | undefined;
  if (!principal) throw unauthenticated();
  return principal;
}

/** The gRPC call context of an authenticated request: request id plus the acting user. */
export function callContext(res: Response): CallContext {
  return { ...anonymousContext(res), principal: { userId: principalOf(res).userId } };
}

/** The call context of a request made with no user (webhooks, authentication, sign-in). */
export function anonymousContext(res: Response): CallContext {
  const trace = res.locals.trace as TraceParent | undefined;
  return trace ? { requestId: requestIdOf(res), trace } : { requestId: requestIdOf(res) };
}

/** The per-request child logger set by the access-log middleware (falls back to `fallback`). */
export function loggerOf(res: Response, fallback: Logger): Logger {
  return (res.locals.logger as Logger | undefined) ?? fallback;
}
