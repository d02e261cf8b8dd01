/** String rules of the reference (Rails `presence`, `truncate`, hosts truncation). */

/** Ruby `blank?`: undefined, null, false, whitespace-only strings, empty arrays and objects. */
export function isBlank(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return true;
  if (typeof value === "string") return value.trim() === "";
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value).length === 0;
  return false;
}

/** Text of a scalar value; objects and arrays as JSON. */
export function toText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (value === undefined || value === null) return "";
  return JSON.stringify(value);
}

/** Rails `String#truncate(max)`: at most `max` characters, ending `...` when cut. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, max - 3).join("")}...`;
}

/** A non-blank value as text truncated to `max`, else undefined. */
export function presentText(value: unknown, max: number): string | undefined {
  if (isBlank(value)) return undefined;
  const text = toText(value);
  return text.trim() === "" ? undefined : truncate(text, max);
}

const HOSTS_MAX_LENGTH = 255;

/** A string or (nested) array of hosts as a flat list of strings; blanks dropped. */
export function flattenHosts(value: unknown): string[] {
  if (isBlank(value)) return [];
  const items = Array.isArray(value) ? value.flat(Number.POSITIVE_INFINITY) : [value];
  return items
    .filter((h) => h !== null && h !== undefined)
    .map(toText)
    .filter((h) => h !== "");
}

/**
 * Reference 3.5: when the joined hosts exceed `max` characters, each host in order is cut to
 * the remaining budget (no omission marker) and hosts stop once the budget is spent.
 */
export function truncateHosts(hosts: string[], max = HOSTS_MAX_LENGTH): string[] {
  if (Array.from(hosts.join("")).length <= max) return hosts;
  const out: string[] = [];
  let budget = max;
  for (const host of hosts) {
    if (budget <= 0) break;
    const chars = Array.from(host);
    const kept = chars.slice(0, budget).join("");
    out.push(kept);
    budget -= Math.min(chars.length, budget);
  }
  return out;
}
