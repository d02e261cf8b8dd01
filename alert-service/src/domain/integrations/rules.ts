import { type AppError, type CallContext, forbidden, hasControlCharacter, invalidArgument } from "@tocsin/core";
import type { PayloadMapping, ProjectRef } from "../types.js";
import { parseMapping } from "./mapping.js";
import { parsePayloadExample } from "./payload.js";
import type { IntegrationKeys, IntegrationStore } from "./ports.js";
import type { IntegrationRecord } from "./types.js";

const MAX_NAME_LENGTH = 255;

/** `Name can't be blank` / too long, as GitLab's validation body `{"message":{"name":[...]}}`. */
export function checkName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalidArgument("NAME_INVALID", "Name can't be blank", { name: ["can't be blank"] });
  if (name.length > MAX_NAME_LENGTH) {
    throw invalidArgument("NAME_INVALID", "Name is too long (maximum is 255 characters)", {
      name: ["is too long (maximum is 255 characters)"],
    });
  }
  if (hasControlCharacter(name)) {
    throw invalidArgument("NAME_INVALID", "Name must not contain control characters (NUL, line breaks, tabs...)", {
      name: ["must not contain control characters (NUL, line breaks, tabs...)"],
    });
  }
  return name;
}

const MAX_RATE_LIMIT_PER_MINUTE = 1_000_000;

/** `rate_limit_per_minute`: an integer from 0 (unlimited) to 1 000 000. */
export function checkRateLimit(value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > MAX_RATE_LIMIT_PER_MINUTE) {
    const why = `must be an integer from 0 (unlimited) to ${MAX_RATE_LIMIT_PER_MINUTE}`;
    throw invalidArgument("RATE_LIMIT_INVALID", `rate_limit_per_minute ${why}`, { rate_limit_per_minute: [why] });
  }
  return value;
}

/** `auto_resolve_minutes`: 1 to 10080 (a week); 0 or null turns it off (→ null). */
export function checkAutoResolve(value: number): number | null {
  if (value === 0) return null;
  if (!Number.isInteger(value) || value < 1 || value > 10_080) {
    const why = "must be an integer from 1 to 10080 (minutes), or null to turn it off";
    throw invalidArgument("AUTO_RESOLVE_INVALID", `auto_resolve_minutes ${why}`, { auto_resolve_minutes: [why] });
  }
  return value;
}

const API_URL_MAX_LENGTH = 2048;

const badUrl = (why: string) => invalidArgument("API_URL_INVALID", `api_url ${why}`, { api_url: [why] });

/**
 * An http(s) URL with a host, or empty (required, non-empty, when `required`). `ftp:`,
 * `javascript:`, relative paths, spaces and control characters are refused, each saying why.
 */
export function checkApiUrl(raw: string, required: boolean): string {
  const value = raw.trim();
  if (!value) {
    if (required)
      throw invalidArgument("API_URL_INVALID", "api_url is required to activate this integration", {
        api_url: ["can't be blank"],
      });
    return "";
  }
  if (value.length > API_URL_MAX_LENGTH) throw badUrl(`is too long (maximum is ${API_URL_MAX_LENGTH} characters)`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\s\u0000-\u001f\u007f]/.test(value)) throw badUrl("must not contain spaces or control characters");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badUrl("must be a valid http or https URL (e.g. https://app.opsgenie.com/alert/list)");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw badUrl(`must use http or https, not ${url.protocol.replace(/:$/, "")}`);
  if (!url.hostname) throw badUrl("must name a host");
  return value;
}

export const premium = (project: ProjectRef) => project.tier !== "free";

export function customMappingUnavailable(): AppError {
  return forbidden(
    "CUSTOM_MAPPING_UNAVAILABLE",
    "Custom mapping and payload fields are available in the Premium and Ultimate tiers only",
  );
}

export function multipleNotSupported(): AppError {
  return forbidden(
    "MULTIPLE_INTEGRATIONS_NOT_SUPPORTED",
    "Multiple integrations of a single type are not supported for this project",
  );
}

/** The sample payload and mapping of a create/update, parsed; `{}`/empty count as absent. */
export interface CustomMapping {
  payloadExample?: string;
  mapping?: PayloadMapping | null;
}

export function parseCustomMapping(project: ProjectRef, payloadExampleJson?: string, mappingJson?: string): CustomMapping {
  const out: CustomMapping = {};
  if (payloadExampleJson !== undefined) {
    const example = payloadExampleJson.trim() === "" ? {} : parsePayloadExample(payloadExampleJson);
    out.payloadExample = JSON.stringify(example);
  }
  if (mappingJson !== undefined) out.mapping = mappingJson.trim() === "" ? null : parseMapping(mappingJson);
  const used =
    (out.payloadExample !== undefined && out.payloadExample !== "{}") || (out.mapping !== undefined && out.mapping !== null);
  if (used && !premium(project)) throw customMappingUnavailable();
  return out;
}

/** Is any integration of the project other than `exceptId` active (keys as auth-service sees them)? */
async function othersActive(
  records: IntegrationRecord[],
  keys: IntegrationKeys,
  projectId: number,
  exceptId: number,
  ctx: CallContext,
): Promise<boolean> {
  const keyList = await keys.list(projectId, ctx);
  const keyActive = new Map(keyList.map((k) => [k.integrationId, k.active]));
  return records.some((r) => r.id !== exceptId && r.type !== "opsgenie" && keyActive.get(r.id) === true);
}

/** Refuses to activate an http/prometheus integration while the project's opsgenie link is active. */
export async function assertOpsgenieInactive(store: IntegrationStore, projectId: number): Promise<void> {
  const opsgenie = await store.findSingleton(projectId, "opsgenie");
  if (opsgenie?.active) {
    throw invalidArgument(
      "OPSGENIE_ACTIVE",
      "The Opsgenie integration is active: while it is, no other alert integration can be active. Disable it first.",
    );
  }
}

/** Refuses to activate opsgenie while another integration is active. */
export async function assertNoOtherActive(
  store: IntegrationStore,
  keys: IntegrationKeys,
  projectId: number,
  opsgenieId: number,
  ctx: CallContext,
) {
  const records = await store.list(projectId);
  if (await othersActive(records, keys, projectId, opsgenieId, ctx)) {
    throw invalidArgument(
      "OTHER_INTEGRATION_ACTIVE",
      "The Opsgenie integration cannot be enabled while another alert integration is active. Disable the other integrations first.",
    );
  }
}
