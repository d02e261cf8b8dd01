import { invalidArgument } from "@tocsin/core";
import { compileMatcher } from "./matching.js";
import type { Matcher, Silence } from "./model.js";

const MATCHER_TEXT = /^\s*([^\s=!~"{},]+|"(?:[^"\\]|\\.)*")\s*(=~|!~|!=|=)\s*(.*?)\s*$/s;

function unquote(text: string): string {
  if (!text.startsWith('"')) return text;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "string") return value;
  } catch {
    // falls through to the refusal below
  }
  throw invalidArgument("FILTER_INVALID", `bad matcher format: ${text}`);
}

/**
 * One matcher in Prometheus text form (`name="value"`, `name=~"re"`, `name!=v`, `name!~re`, with
 * or without quotes), as amtool sends in `filter`. INVALID_ARGUMENT `FILTER_INVALID` otherwise.
 */
export function parseMatcherText(text: string): Matcher {
  const inner = text.trim().replace(/^\{(.*)\}$/s, "$1");
  const m = MATCHER_TEXT.exec(inner);
  if (!m?.[1] || !m[2]) throw invalidArgument("FILTER_INVALID", `bad matcher format: ${text}`);
  const op = m[2];
  const matcher = {
    name: unquote(m[1]),
    value: unquote(m[3] ?? ""),
    isRegex: op.endsWith("~"),
    isEqual: !op.startsWith("!"),
  };
  if (!compileMatcher(matcher)) throw invalidArgument("FILTER_INVALID", `bad matcher format: ${text}`);
  return matcher;
}

/**
 * Alertmanager's `filter` of GET /silences: the silence's matchers read as a label set (name →
 * value) must satisfy every filter matcher; an empty `=` filter value skips a missing name and an
 * empty `!=` value skips a present one, as Alertmanager does.
 */
export function silenceFilterHolds(silence: Silence, filters: Matcher[]): boolean {
  const labels = new Map(silence.matchers.map((m) => [m.name, m.value]));
  return filters.every((f) => {
    const present = labels.has(f.name);
    if (f.value === "" && (f.isEqual ? !present : present)) return true;
    const compiled = compileMatcher(f);
    const hit = compiled?.test(labels.get(f.name) ?? "") ?? false;
    return f.isEqual ? hit : !hit;
  });
}
