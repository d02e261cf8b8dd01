import { randomBytes } from "node:crypto";
import { invalidArgument } from "@tocsin/core";
import type { DestinationRecord } from "./types.js";

/** Longest destination URL accepted (GitLab's hook URL limit). */
const MAX_URL_LENGTH = 2048;

/**
 * A destination URL as configured: absolute, https — http only when the local network is allowed
 * (OUTBOUND_ALLOW_LOCAL_NETWORK) — without user info. Where it points is checked at each delivery,
 * after DNS resolution (a name can change its address), not here.
 */
export function checkDestinationUrl(field: string, raw: string, allowLocalNetwork: boolean): string {
  const value = raw.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw urlInvalid(field, "is not a valid URL");
  }
  if (value.length > MAX_URL_LENGTH) throw urlInvalid(field, `is longer than ${MAX_URL_LENGTH} characters`);
  const protocols = allowLocalNetwork ? ["https:", "http:"] : ["https:"];
  if (!protocols.includes(url.protocol))
    throw urlInvalid(field, allowLocalNetwork ? "must be an http or https URL" : "must be an https URL");
  if (url.username || url.password) throw urlInvalid(field, "must not carry a user name or password");
  return url.toString();
}

const urlInvalid = (field: string, why: string) => invalidArgument("URL_INVALID", `${field} ${why}`, { [field]: [why] });

/** A chat webhook URL is a secret (its path is the credential): shown as `https://<host>/****`. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/****`;
  } catch {
    return "****";
  }
}

/** A new Standard Webhooks signing key: `whsec_` and 32 random bytes in base64 (the spec allows 24–64). */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

/**
 * The secrets a hook's delivery at `at` is signed with: the current one, then the one it replaced
 * while that one's overlap lasts (Standard Webhooks: space-separated signatures during rotation).
 */
export function signingSecrets(
  hook: Pick<DestinationRecord, "signingSecret" | "previousSigningSecret" | "previousSigningSecretExpiresAt">,
  at: Date,
): string[] {
  if (!hook.signingSecret) return [];
  const { previousSigningSecret: previous, previousSigningSecretExpiresAt: until } = hook;
  return previous && until && until.getTime() > at.getTime() ? [hook.signingSecret, previous] : [hook.signingSecret];
}

/** Longest free-text field (username, channel names). */
export function checkText(field: string, value: string): string {
  if (value.length > 255) throw invalidArgument("PARAM_INVALID", `${field} is too long (maximum is 255 characters)`);
  return value;
}
