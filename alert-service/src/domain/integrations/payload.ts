import { invalidArgument, jsonDepth } from "@tocsin/core";
import type { PayloadField } from "./types.js";

/** Largest sample payload accepted, in bytes of JSON text (as the webhook's body limit). */
const MAX_PAYLOAD_BYTES = 1024 * 1024;
/** Deepest nesting of objects and arrays accepted. */
const MAX_PAYLOAD_DEPTH = 100;

/**
 * Parses a sample payload: JSON text of an object, at most 1 MiB and 100 levels deep.
 * Errors: INVALID_ARGUMENT (PAYLOAD_EXAMPLE_INVALID) naming the problem (too big, too deep, not
 * JSON, not an object).
 */
export function parsePayloadExample(text: string, what = "payload_example"): Record<string, unknown> {
  if (Buffer.byteLength(text, "utf8") > MAX_PAYLOAD_BYTES) {
    throw invalidArgument("PAYLOAD_EXAMPLE_INVALID", `${what} is too big: at most 1 MiB of JSON`);
  }
  if (jsonDepth(text, MAX_PAYLOAD_DEPTH) > MAX_PAYLOAD_DEPTH) {
    throw invalidArgument("PAYLOAD_EXAMPLE_INVALID", `${what} is nested too deeply: at most ${MAX_PAYLOAD_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidArgument("PAYLOAD_EXAMPLE_INVALID", `${what} must be valid JSON`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    throw invalidArgument("PAYLOAD_EXAMPLE_INVALID", `${what} must be a JSON object, not ${kind}`);
  }
  return value as Record<string, unknown>;
}

function labelOf(path: Array<string | number>): string {
  let label = "";
  for (const seg of path) label += typeof seg === "number" ? `[${seg}]` : label ? `/${seg}` : seg;
  return label;
}

/**
 * The fields of a sample payload a mapping can use, depth first in document order: arrays
 * (type `array`) and then each element, strings (`datetime` when they start with four digits,
 * else `string`). Numbers, booleans, nulls and objects are not offered. Iterative.
 */
export function extractPayloadFields(payload: Record<string, unknown>): PayloadField[] {
  const out: PayloadField[] = [];
  const stack: Array<{ path: Array<string | number>; value: unknown }> = [];
  const pushChildren = (path: Array<string | number>, value: unknown) => {
    const entries: Array<[string | number, unknown]> = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value as object);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as [string | number, unknown];
      stack.push({ path: [...path, key], value: child });
    }
  };
  pushChildren([], payload);
  while (stack.length > 0) {
    const { path, value } = stack.pop() as { path: Array<string | number>; value: unknown };
    if (Array.isArray(value)) {
      out.push({ path, label: labelOf(path), type: "array" });
      pushChildren(path, value);
    } else if (value !== null && typeof value === "object") {
      pushChildren(path, value);
    } else if (typeof value === "string") {
      out.push({ path, label: labelOf(path), type: /^\d{4}/.test(value) ? "datetime" : "string" });
    }
  }
  return out;
}
