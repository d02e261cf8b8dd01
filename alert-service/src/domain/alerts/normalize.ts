import type { PayloadMapping, Tier } from "../types.js";
import { fingerprintOf, payloadFingerprint } from "./fingerprint.js";
import { compileMapping, fieldReader, fingerprintPart, isZeroTime, mappingApplies } from "./mapping-reader.js";
import { DEFAULT_SOURCE, DEFAULT_TITLE, type NormalizedAlert, SEVERITIES, type Severity } from "./model.js";
import { flattenHosts, isBlank, presentText, truncateHosts } from "./text.js";
import { parseEndTime, parseTime } from "./times.js";

export const TITLE_MAX_LENGTH = 200;
export const DESCRIPTION_MAX_LENGTH = 1000;
const SERVICE_MAX_LENGTH = 100;
const TOOL_MAX_LENGTH = 100;

export interface NormalizeOptions {
  tier: Tier;
  /** The integration's custom mapping; applied on Premium and above when non-empty. */
  mapping: PayloadMapping | null;
  integrationName: string;
  receivedAt: Date;
}

export function toSeverity(value: unknown): Severity {
  if (typeof value !== "string") return "critical";
  const lower = value.trim().toLowerCase();
  return (SEVERITIES as readonly string[]).includes(lower) ? (lower as Severity) : "critical";
}

/** Reads a generic (HTTP Endpoint) payload into one alert, with its fingerprint. */
export function normalizeGeneric(payload: Record<string, unknown>, opts: NormalizeOptions): NormalizedAlert {
  const compiled = mappingApplies(opts.tier, opts.mapping) ? compileMapping(opts.mapping) : null;
  const read = fieldReader(payload, compiled);
  const start = read("start_time");
  const end = read("end_time");
  const startedAt = start instanceof Date ? start : (nonZero(parseTime(start)) ?? opts.receivedAt);
  const endedAt = end instanceof Date ? end : nonZero(parseEndTime(end));
  const monitoringTool = presentText(read("monitoring_tool"), TOOL_MAX_LENGTH);
  const alert: NormalizedAlert = {
    title: presentText(read("title"), TITLE_MAX_LENGTH) ?? DEFAULT_TITLE,
    hosts: truncateHosts(flattenHosts(read("hosts"))),
    severity: toSeverity(read("severity")),
    startedAt: startedAt.toISOString(),
    source: monitoringTool ?? (opts.integrationName.trim() || DEFAULT_SOURCE),
    payload,
  };
  assign(alert, "description", presentText(read("description"), DESCRIPTION_MAX_LENGTH));
  assign(alert, "service", presentText(read("service"), SERVICE_MAX_LENGTH));
  assign(alert, "monitoringTool", monitoringTool);
  assign(alert, "environmentName", presentText(read("environment_name"), 255));
  assign(alert, "endedAt", endedAt?.toISOString());
  const explicit = read("fingerprint");
  const fingerprint = !isBlank(explicit)
    ? fingerprintOf(explicit)
    : opts.tier !== "free"
      ? payloadFingerprint(fingerprintPart(payload, compiled))
      : undefined;
  assign(alert, "fingerprint", fingerprint);
  return alert;
}

/** Go's zero time (`0001-01-01T00:00:00Z`) is "no time". */
function nonZero(at: Date | undefined): Date | undefined {
  return at && !isZeroTime(at) ? at : undefined;
}

function assign<K extends keyof NormalizedAlert>(alert: NormalizedAlert, key: K, value: NormalizedAlert[K] | undefined) {
  if (value !== undefined) alert[key] = value;
}
