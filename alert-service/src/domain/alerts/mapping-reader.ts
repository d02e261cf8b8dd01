import type { PayloadMapping, Tier } from "../types.js";
import { EXCLUDED_FINGERPRINT_KEYS } from "./fingerprint.js";
import { isBlank } from "./text.js";
import { parseTime } from "./times.js";

type Path = ReadonlyArray<string | number>;

/** One mapped source of an alert field. */
interface MappedSource {
  path: Path;
  datetime: boolean;
}

/**
 * A custom mapping turned into what reading a payload needs: per alert field the mapped paths
 * to try, and the paths an automatic (Premium) fingerprint leaves out. Built once per mapping
 * object and kept in a WeakMap, so the integration directory's cached runtime (one mapping
 * object per integration for its TTL) compiles each mapping once, not once per request.
 */
export interface CompiledMapping {
  sources: ReadonlyMap<string, readonly MappedSource[]>;
  /** Mapped paths of start_time, end_time and hosts (excluded from automatic fingerprints). */
  excludedPaths: readonly Path[];
}

/** Alert field → names a mapping may use for it (the environment has GitLab's old name too). */
const MAPPED_NAMES: Record<string, readonly string[]> = {
  environment_name: ["platform_environment_name", "gitlab_environment_name", "environment_name"],
};

/** Alert field → payload key(s) without a mapping (spec 2.2). */
const DEFAULT_KEYS: Record<string, readonly string[]> = {
  environment_name: ["platform_environment_name", "gitlab_environment_name"],
};

const ALERT_FIELDS = [
  "title",
  "description",
  "start_time",
  "end_time",
  "service",
  "monitoring_tool",
  "hosts",
  "severity",
  "fingerprint",
  "environment_name",
] as const;

const compiledCache = new WeakMap<PayloadMapping, CompiledMapping>();
let compilations = 0;

/** How many mappings were compiled since start (lets tests prove the cache works). */
export function mappingCompilations(): number {
  return compilations;
}

export function mappingApplies(tier: Tier, mapping: PayloadMapping | null): mapping is PayloadMapping {
  return tier !== "free" && mapping !== null && Object.keys(mapping).length > 0;
}

export function compileMapping(mapping: PayloadMapping): CompiledMapping {
  const hit = compiledCache.get(mapping);
  if (hit) return hit;
  compilations++;
  const sources = new Map<string, MappedSource[]>();
  for (const field of ALERT_FIELDS) {
    const list: MappedSource[] = [];
    for (const name of MAPPED_NAMES[field] ?? [field]) {
      const m = Object.hasOwn(mapping, name) ? mapping[name] : undefined;
      if (m && Array.isArray(m.path)) list.push({ path: [...m.path], datetime: m.type === "datetime" });
    }
    if (list.length > 0) sources.set(field, list);
  }
  const excludedPaths = ["start_time", "end_time", "hosts"].flatMap((f) => (sources.get(f) ?? []).map((s) => s.path));
  const compiled: CompiledMapping = { sources, excludedPaths };
  compiledCache.set(mapping, compiled);
  return compiled;
}

/**
 * `payload.dig(*path)`: string segments read own keys of objects, integer segments index arrays;
 * anything else (a key on an array, an index on an object, inherited properties) is absent.
 */
export function dig(payload: unknown, path: Path): unknown {
  let node: unknown = payload;
  for (const segment of path) {
    if (typeof segment === "number") {
      if (!Array.isArray(node)) return undefined;
      node = node[segment];
    } else {
      if (node === null || typeof node !== "object" || Array.isArray(node) || !Object.hasOwn(node, segment)) return undefined;
      node = (node as Record<string, unknown>)[segment];
    }
  }
  return node;
}

/** Go's zero time (`0001-01-01T00:00:00Z`, Alertmanager's and Grafana's "not ended") means no time. */
export function isZeroTime(at: Date): boolean {
  return at.getUTCFullYear() <= 1;
}

const DOTTED_DATE = /^(\d{4})\.(\d{2})\.(\d{2})(?=$|[T ])/;

/**
 * A mapped `datetime` value: as `parseTime`, also with Zabbix's dotted dates (`2026.11.21
 * 10:00:00`, from `{EVENT.DATE} {EVENT.TIME}`); Go's zero time counts as absent.
 */
export function parseMappedTime(value: unknown): Date | undefined {
  const text = typeof value === "string" ? value.trim().replace(DOTTED_DATE, "$1-$2-$3") : value;
  const at = parseTime(text);
  return at && !isZeroTime(at) ? at : undefined;
}

export type FieldReader = (field: string) => unknown;

/**
 * Reads alert fields of one payload: the first mapped value that is present (a `datetime` one
 * only when it parses, then as a Date), else the default key(s), else undefined. `false` and
 * blank values count as absent, as the reference's `presence`.
 */
export function fieldReader(payload: Record<string, unknown>, compiled: CompiledMapping | null): FieldReader {
  return (field) => {
    for (const source of compiled?.sources.get(field) ?? []) {
      const value = dig(payload, source.path);
      if (isBlank(value)) continue;
      if (!source.datetime) return value;
      const at = parseMappedTime(value);
      if (at) return at;
    }
    for (const key of DEFAULT_KEYS[field] ?? [field]) {
      const value = Object.hasOwn(payload, key) ? payload[key] : undefined;
      if (!isBlank(value)) return value;
    }
    return undefined;
  };
}

/** A copy of `node` without the value at `path` (objects: key removed; arrays: element nulled). */
function without(node: unknown, path: Path, at = 0): unknown {
  const segment = path[at];
  if (segment === undefined) return node;
  const last = at === path.length - 1;
  if (typeof segment === "number" && Array.isArray(node) && segment < node.length) {
    const copy = [...node];
    copy[segment] = last ? null : without(node[segment], path, at + 1);
    return copy;
  }
  if (typeof segment === "string" && node !== null && typeof node === "object" && !Array.isArray(node)) {
    if (!Object.hasOwn(node, segment)) return node;
    const copy = { ...(node as Record<string, unknown>) };
    if (last) delete copy[segment];
    else copy[segment] = without(copy[segment], path, at + 1);
    return copy;
  }
  return node;
}

/**
 * The part of a payload an automatic (Premium) fingerprint covers: without the top-level
 * `start_time`, `end_time` and `hosts`, and without the mapped start time, end time and hosts,
 * so that a recovery (the firing payload plus its end time) groups with its alert.
 */
export function fingerprintPart(payload: Record<string, unknown>, compiled: CompiledMapping | null): Record<string, unknown> {
  let rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (!(EXCLUDED_FINGERPRINT_KEYS as readonly string[]).includes(key)) rest[key] = value;
  }
  for (const path of compiled?.excludedPaths ?? []) rest = without(rest, path) as Record<string, unknown>;
  return rest;
}
