import type { IncomingMessage } from "node:http";
import type { Request } from "express";
import proxyaddr from "proxy-addr";

/** IPv4-mapped IPv6 (`::ffff:1.2.3.4`) is shown as IPv4. */
const shown = (ip: string | undefined) => (ip === undefined ? "unknown" : ip.startsWith("::ffff:") ? ip.slice(7) : ip);

/**
 * The client's address: the TCP peer, or with TRUST_PROXY set the first untrusted address of
 * X-Forwarded-For (express's `req.ip`).
 */
export function clientAddress(req: Request): string {
  return shown(req.ip ?? req.socket.remoteAddress);
}

/**
 * The same address for a request express never sees (the webhook): TRUST_PROXY compiled the way
 * express compiles `trust proxy` (true, a hop count, or comma-separated addresses/subnets), with
 * the library express uses. Unset: the TCP peer, without parsing any header.
 */
export function createClientAddress(trustProxy: boolean | number | string): (req: IncomingMessage) => string {
  if (trustProxy === false) return (req) => shown(req.socket.remoteAddress);
  const trust =
    trustProxy === true
      ? () => true
      : typeof trustProxy === "number"
        ? (_addr: string, i: number) => i < trustProxy
        : proxyaddr.compile(trustProxy.split(",").map((v) => v.trim()));
  return (req) => shown(proxyaddr(req, trust));
}
