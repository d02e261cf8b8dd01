import type { PayloadMapping, Tier } from "../types.js";
import { fingerprintOf, payloadFingerprint } from "./fingerprint.js";
import { DEFAULT_SOURCE, DEFAULT_TITLE, type NormalizedAlert, SEVERITIES, type Severity } from "./model.js";
import { flattenHosts, isBlank, presentText, truncateHosts } from "./text.js";
import { parseEndTime, parseTime } from "./times.js";

export const TITLE_MAX_LENGTH = 200;
export const DESCRIPTION_MAX_LENGTH = 1000;
export const SERVICE_MAX_LENGTH = 100;
export const TOOL_MAX_LENGTH = 100;

export interface NormalizeOptions {
  tier: Tier;
  /** The integration's custom mapping; applied on Premium and above when non-empty. */
  mapping: PayloadMapping | null;
  integrationName: string;
  receivedAt: Date;
}

/** Alert field → payload key without a mapping. */
const DEFAULT_KEYS: Record<string, string[]> = {
  title: ["title"],
  description: ["description"],
  start_time: ["start_time"],
  end_time: ["end_time"],
  service: ["service"],
  monitoring_tool: ["monitoring_tool"],
  hosts: ["hosts"],
  severity: ["severity"],
  fingerprint: ["fingerprint"],
  environment_name: ["platform_environment_name", "gitlab_environment_name"],
};

const MAPPED_NAMES: Record<string, string[]> = {
  environment_name: ["platform_environment_name", "gitlab_environment_name", "environment_name"],
};

export function dig(payload: unknown, path: ReadonlyArray<string | number>): unknown {
  let node: unknown = payload;
  for (const segment of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

export function mappingApplies(tier: Tier, mapping: PayloadMapping | null): mapping is PayloadMapping {
  return tier !== "free" && mapping !== null && Object.keys(mapping).length > 0;
}

/** Reads one alert field: the mapped value when present, else the default key(s). */
function reader(payload: Record<string, unknown>, mapping: PayloadMapping | null) {
  return (field: string): { value: unknown; mappedType?: string } => {
    for (const name of MAPPED_NAMES[field] ?? [field]) {
      const m = mapping?.[name];
      if (!m) continue;
      const value = dig(payload, m.path);
      if (value === false || isBlank(value)) continue;
      if (m.type === "datetime") {
        const at = parseTime(value);
        if (at) return { value: at, mappedType: "datetime" };
        continue;
      }
      return { value, mappedType: m.type };
    }
    for (const key of DEFAULT_KEYS[field] ?? [field]) {
      const value = payload[key];
      if (value !== false && !isBlank(value)) return { value };
    }
    return { value: undefined };
  };
}

export function toSeverity(value: unknown): Severity {
  if (typeof value !== "string") return "critical";
  const lower = value.trim().toLowerCase();
  return (SEVERITIES as readonly string[]).includes(lower) ? (lower as Severity) : "critical";
}

/** Reads a generic (HTTP Endpoint) payload into one alert, with its fingerprint. */
export function normalizeGeneric(payload: Record<string, unknown>, opts: NormalizeOptions): NormalizedAlert {
  const mapping = mappingApplies(opts.tier, opts.mapping) ? opts.mapping : null;
  const read = reader(payload, mapping);
  const start = read("start_time").value;
  const end = read("end_time").value;
  const startedAt = start instanceof Date ? start : (parseTime(start) ?? opts.receivedAt);
  const endedAt = end instanceof Date ? end : parseEndTime(end);
  const monitoringTool = presentText(read("monitoring_tool").value, TOOL_MAX_LENGTH);
  const alert: NormalizedAlert = {
    title: presentText(read("title").value, TITLE_MAX_LENGTH) ?? DEFAULT_TITLE,
    hosts: truncateHosts(flattenHosts(read("hosts").value)),
    severity: toSeverity(read("severity").value),
    startedAt: startedAt.toISOString(),
    source: monitoringTool ?? (opts.integrationName.trim() || DEFAULT_SOURCE),
    payload,
  };
  assign(alert, "description", presentText(read("description").value, DESCRIPTION_MAX_LENGTH));
  assign(alert, "service", presentText(read("service").value, SERVICE_MAX_LENGTH));
  assign(alert, "monitoringTool", monitoringTool);
  assign(alert, "environmentName", presentText(read("environment_name").value, 255));
  assign(alert, "endedAt", endedAt?.toISOString());
  const explicit = read("fingerprint").value;
  const fingerprint = !isBlank(explicit)
    ? fingerprintOf(explicit)
    : opts.tier !== "free"
      ? payloadFingerprint(payload)
      : undefined;
  assign(alert, "fingerprint", fingerprint);
  return alert;
}

function assign<K extends keyof NormalizedAlert>(alert: NormalizedAlert, key: K, value: NormalizedAlert[K] | undefined) {
  if (value !== undefined) alert[key] = value;
}
