/**
 * The integration key from `Authorization: Bearer <key>` or `Authorization: Basic
 * base64(<any user>:<key>)`. Anything else (no header, another scheme, no key) → undefined.
 */
export function extractToken(header: string | undefined): string | undefined {
  if (!header || header.length > 4096) return undefined;
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(header);
  if (!match) return undefined;
  const scheme = (match[1] as string).toLowerCase();
  const value = match[2] as string;
  if (scheme === "bearer") return value;
  if (scheme !== "basic") return undefined;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return undefined;
  const decoded = Buffer.from(value, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const password = colon >= 0 ? decoded.slice(colon + 1) : "";
  return password || undefined;
}
