import { sha1Hex } from "@tocsin/core";
import { isBlank, toText } from "./text.js";

/** Top-level keys that never take part in an automatic (Premium) fingerprint. */
export const EXCLUDED_FINGERPRINT_KEYS = ["start_time", "end_time", "hosts"] as const;

/** Ruby `inspect` of a JSON value (Ruby < 3.4 hash style), the reference's canonical text. */
function inspect(value: unknown): string {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : rubyFloat(value);
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(inspect).join(", ")}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}=>${inspect(v)}`).join(", ")}}`;
}

function rubyFloat(n: number): string {
  const text = String(n);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

/** Nested object keys joined with "." (arrays stay values), as the reference's `merge_keys`. */
function mergeKeys(obj: Record<string, unknown>, prefix = "", out: Array<[string, unknown]> = []) {
  for (const [key, value] of Object.entries(obj)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      mergeKeys(value as Record<string, unknown>, path, out);
    } else {
      out.push([path, value]);
    }
  }
  return out;
}

/** Key-order-independent text of an object: sorted flattened pairs, Ruby-inspected. */
export function canonicalObject(obj: Record<string, unknown>): string {
  const keys = Object.keys(obj);
  if (keys.every((key) => typeof obj[key] === "string")) return canonicalLabels(obj as Record<string, string>, keys);
  const pairs = mergeKeys(obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return inspect(pairs);
}

/**
 * `canonicalObject` of an object whose values are all strings (Prometheus labels: every
 * Alertmanager alert's fingerprint), the same text without the pairs, entries and recursion of
 * the general way: nothing nests, so each key is its own path. `sort()` orders by UTF-16 code
 * units, as the general way's `<` does.
 */
function canonicalLabels(labels: Record<string, string>, keys: string[]): string {
  keys.sort();
  let text = "[";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    text += `${i === 0 ? "" : ", "}[${JSON.stringify(key)}, ${JSON.stringify(labels[key])}]`;
  }
  return `${text}]`;
}

/**
 * SHA-1 hex of a `fingerprint` value: scalars by their text, arrays flattened and joined
 * without separator, objects by their canonical form. Undefined when blank.
 */
export function fingerprintOf(value: unknown): string | undefined {
  if (isBlank(value)) return undefined;
  if (Array.isArray(value)) {
    const flat = value.flat(Number.POSITIVE_INFINITY);
    return sha1Hex(flat.map((v) => (v !== null && typeof v === "object" ? inspect(v) : toText(v))).join(""));
  }
  if (typeof value === "object") return sha1Hex(canonicalObject(value as Record<string, unknown>));
  return sha1Hex(toText(value));
}

/**
 * Premium automatic grouping: the payload without start_time, end_time and hosts; undefined
 * when nothing non-blank is left.
 */
export function payloadFingerprint(payload: Record<string, unknown>): string | undefined {
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    if ((EXCLUDED_FINGERPRINT_KEYS as readonly string[]).includes(key)) continue;
    rest[key] = value;
  }
  if (Object.values(rest).every(isBlank)) return undefined;
  return sha1Hex(canonicalObject(rest));
}
