import { invalidArgument } from "@tocsin/core";
import type { FieldMapping, PayloadMapping } from "../types.js";

/** Alert fields a custom mapping may fill, with the payload field types each accepts. */
export const MAPPABLE_FIELDS: Record<string, readonly string[]> = {
  title: ["string"],
  description: ["string"],
  start_time: ["datetime"],
  end_time: ["datetime"],
  service: ["string"],
  monitoring_tool: ["string"],
  hosts: ["string", "array"],
  severity: ["string"],
  fingerprint: ["string", "array"],
  platform_environment_name: ["string"],
};

const invalid = (message: string) =>
  invalidArgument("PAYLOAD_ATTRIBUTE_MAPPINGS_INVALID", `payload_attribute_mappings ${message}`);

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** GitLab's old name of the environment field, accepted and stored under the new one. */
const ALIASES: Record<string, string> = { gitlab_environment_name: "platform_environment_name" };

const ENTRY_KEYS = ["path", "type", "label"];
const MAX_PATH_SEGMENTS = 100;

function segmentOk(s: unknown): boolean {
  return (typeof s === "string" && s.length > 0) || (Number.isSafeInteger(s) && (s as number) >= 0);
}

function checkEntry(field: string, entry: unknown, allowedKeys: readonly string[] = ENTRY_KEYS): FieldMapping {
  const allowed = Object.hasOwn(MAPPABLE_FIELDS, field) ? MAPPABLE_FIELDS[field] : undefined;
  if (!allowed) throw invalid(`names an unknown alert field '${field}' (known: ${Object.keys(MAPPABLE_FIELDS).join(", ")})`);
  if (!isRecord(entry)) throw invalid(`entry for '${field}' must be an object with path and type`);
  const extra = Object.keys(entry).filter((k) => !allowedKeys.includes(k));
  if (extra.length > 0) throw invalid(`entry for '${field}' has unknown properties: ${extra.join(", ")}`);
  const { path, type, label } = entry;
  if (!Array.isArray(path) || path.length === 0 || path.length > MAX_PATH_SEGMENTS || !path.every(segmentOk)) {
    throw invalid(
      `entry for '${field}' needs a path: a non-empty array of keys (non-empty strings) and indexes (integers ≥ 0), at most ${MAX_PATH_SEGMENTS}`,
    );
  }
  if (typeof type !== "string" || !allowed.includes(type.toLowerCase())) {
    const hint =
      typeof type === "string" && type.toLowerCase() === "datetime" && allowed.includes("string")
        ? " (text that starts with four digits is offered as datetime: send type string to read it as text)"
        : "";
    throw invalid(
      `entry for '${field}' has type ${JSON.stringify(type ?? null)}; allowed for ${field}: ${allowed.join(", ")}${hint}`,
    );
  }
  if (label !== undefined && label !== null && typeof label !== "string")
    throw invalid(`entry for '${field}' has a label that is not a string`);
  const out: FieldMapping = { path: path as Array<string | number>, type: type.toLowerCase() };
  if (typeof label === "string") out.label = label;
  return out;
}

function fieldName(raw: string): string {
  const lower = raw.toLowerCase();
  return ALIASES[lower] ?? lower;
}

/**
 * Parses and validates a mapping given as JSON text: either an object of alert field → `{path,
 * type, label?}` (the stored form) or an array of `{field_name, path, type, label?}` (GitLab's
 * GraphQL input form). Field names are case-insensitive (`TITLE` as GitLab's UI sends it).
 * Returns null for an empty mapping. Errors: INVALID_ARGUMENT naming the problem.
 */
export function parseMapping(text: string): PayloadMapping | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid("must be valid JSON");
  }
  if (value === null) return null;
  const out: PayloadMapping = {};
  const add = (raw: string, entry: unknown, keys?: readonly string[]) => {
    const field = fieldName(raw);
    if (Object.hasOwn(out, field)) throw invalid(`maps '${field}' twice`);
    out[field] = checkEntry(field, entry, keys);
  };
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const name = isRecord(item) ? (item.field_name ?? item.fieldName) : undefined;
      if (typeof name !== "string") throw invalid(`item ${index} must be an object with field_name, path and type`);
      add(name, item, [...ENTRY_KEYS, "field_name", "fieldName"]);
    }
  } else if (isRecord(value)) {
    for (const [field, entry] of Object.entries(value)) add(field, entry);
  } else {
    throw invalid("must be an object of alert field to {path, type} (or an array of {field_name, path, type})");
  }
  return Object.keys(out).length > 0 ? out : null;
}
