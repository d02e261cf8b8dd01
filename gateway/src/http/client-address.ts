import type { Request } from "express";

/**
 * The client's address: the TCP peer, or with TRUST_PROXY set the first untrusted address of
 * X-Forwarded-For (express's `req.ip`). IPv4-mapped IPv6 (`::ffff:1.2.3.4`) is shown as IPv4.
 */
export function clientAddress(req: Request): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? "unknown";
  return ip.startsWith("::ffff:") ? ip.slice(7) : ip;
}
