import type { CookieOptions, Request, Response } from "express";
import type { GatewayConfig } from "../config.js";

const SESSION_COOKIE = "_tocsin_session";
export const CSRF_HEADER = "X-CSRF-Token";
/** The browser keeps the cookie as long as the server keeps an idle session (7 days). */
const COOKIE_MAX_AGE_MS = 7 * 24 * 3600_000;

/** The value of one cookie of the request, or undefined. */
function readCookie(req: Request, name: string): string | undefined {
  const header = req.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return value ? value.replace(/^"(.*)"$/, "$1") : undefined;
  }
  return undefined;
}

export const sessionTokenOf = (req: Request) => readCookie(req, SESSION_COOKIE);

/** HttpOnly, SameSite=Lax, Path=/, and Secure when the console is served over https. */
function cookieOptions(config: GatewayConfig): CookieOptions {
  return { httpOnly: true, sameSite: "lax", path: "/", secure: config.externalUrl.startsWith("https:") };
}

export function setSessionCookie(res: Response, config: GatewayConfig, sessionToken: string): void {
  res.cookie(SESSION_COOKIE, sessionToken, { ...cookieOptions(config), maxAge: COOKIE_MAX_AGE_MS, encode: String });
}

export function clearSessionCookie(res: Response, config: GatewayConfig): void {
  res.clearCookie(SESSION_COOKIE, cookieOptions(config));
}
