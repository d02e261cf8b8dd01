import { Metadata } from "@grpc/grpc-js";
import type { CallContext } from "@tocsin/core";

/** Metadata keys shared by every service. */
const REQUEST_ID_KEY = "x-request-id";
/** The acting user's id; set only by the gateway or by an internal service acting for a user. */
const PRINCIPAL_KEY = "x-tocsin-user-id";
export const ERROR_REASON_KEY = "x-error-reason";
export const ERROR_FIELDS_KEY = "x-error-fields";
export const RETRY_AFTER_KEY = "x-retry-after";

export function contextToMetadata(ctx: CallContext): Metadata {
  const md = new Metadata();
  md.set(REQUEST_ID_KEY, ctx.requestId);
  if (ctx.principal) md.set(PRINCIPAL_KEY, String(ctx.principal.userId));
  return md;
}

function first(md: Metadata, key: string): string | undefined {
  const value = md.get(key)[0];
  return value === undefined ? undefined : value.toString();
}

/** Reads request id and principal from incoming metadata; a missing request id gets a new one. */
export function metadataToContext(md: Metadata, newId: () => string): CallContext {
  const requestId = first(md, REQUEST_ID_KEY)?.slice(0, 128) || newId();
  const ctx: CallContext = { requestId };
  const user = first(md, PRINCIPAL_KEY);
  if (user && /^\d{1,15}$/.test(user)) ctx.principal = { userId: Number(user) };
  return ctx;
}

export function readMetadata(md: Metadata | undefined, key: string): string | undefined {
  return md ? first(md, key) : undefined;
}
