import type { CallContext, Clock, Logger } from "@tocsin/core";
import { internalContext as internal, notFound } from "@tocsin/core";
import type { ProjectAccess } from "../ports.js";
import type { ProjectRef } from "../types.js";
import type { IntegrationKey, IntegrationKeys, IntegrationStore } from "./ports.js";
import { httpEndpointUrl, prometheusUrl } from "./slug.js";
import type { IntegrationRecord, IntegrationView } from "./types.js";

/** What the integration use-cases work with. */
export interface IntegrationsDeps {
  store: IntegrationStore;
  keys: IntegrationKeys;
  projects: ProjectAccess;
  clock: Clock;
  logger: Logger;
  /** Base of integration URLs, without a trailing slash. */
  externalUrl: string;
  /** Called after every local write (drops the directory's cache). */
  changed: () => void;
  /** WEBHOOK_RATE_LIMIT_PER_MINUTE: the budget of an integration that sets none. */
  defaultRateLimitPerMinute: number;
}

export const integrationNotFound = () => notFound("Integration");

export function toView(
  deps: IntegrationsDeps,
  project: ProjectRef,
  record: IntegrationRecord,
  key?: IntegrationKey,
): IntegrationView {
  let url = "";
  if (record.type === "http" && key)
    url = httpEndpointUrl(deps.externalUrl, project.fullPath, record.name, key.endpointIdentifier);
  if (record.type === "prometheus") url = prometheusUrl(deps.externalUrl, project.fullPath);
  return {
    ...record,
    rateLimitPerMinute: record.type === "opsgenie" ? null : (record.rateLimitPerMinute ?? deps.defaultRateLimitPerMinute),
    active: key ? key.active : record.active,
    url,
    token: key?.token ?? "",
    endpointIdentifier: key?.endpointIdentifier ?? "",
    previousTokenExpiresAt: key?.previousTokenExpiresAt ?? null,
    signingEnabled: key?.signingEnabled ?? false,
  };
}

/** The key of one integration; a record without one is being created or deleted: not found. */
export async function keyOf(deps: IntegrationsDeps, record: IntegrationRecord, ctx: CallContext): Promise<IntegrationKey> {
  // Key calls are made as a trusted internal caller: the user's role was checked already.
  const keys = await deps.keys.list(record.projectId, internal(ctx));
  const key = keys.find((k) => k.integrationId === record.id);
  if (!key) throw integrationNotFound();
  return key;
}
