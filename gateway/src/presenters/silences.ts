import { invalidArgument } from "@tocsin/core";
import type { alertSilencesV1 } from "@tocsin/proto";
import { isoTime } from "./time.js";

type Silence = alertSilencesV1.Silence;
type Matcher = alertSilencesV1.SilenceMatcher;

/** Alertmanager v2's GettableSilence. */
export function toAlertmanagerSilenceJson(s: Silence) {
  return {
    id: s.id,
    status: { state: s.state },
    updatedAt: isoTime(s.updatedAt),
    comment: s.comment,
    createdBy: s.createdBy,
    endsAt: isoTime(s.endsAt),
    matchers: s.matchers.map((m) => ({ isEqual: m.isEqual, isRegex: m.isRegex, name: m.name, value: m.value })),
    startsAt: isoTime(s.startsAt),
  };
}

/** The same silence in the snake_case REST API (`alert_management/silences`). */
export function toSilenceJson(s: Silence) {
  return {
    id: s.id,
    project_id: s.projectId,
    matchers: s.matchers.map((m) => ({ name: m.name, value: m.value, is_regex: m.isRegex, is_equal: m.isEqual })),
    starts_at: isoTime(s.startsAt),
    ends_at: isoTime(s.endsAt),
    created_by: s.createdBy,
    comment: s.comment,
    state: s.state,
    updated_at: isoTime(s.updatedAt),
  };
}

const invalid = (message: string) => invalidArgument("SILENCE_INVALID", message);

/** A time field: an ISO 8601 / RFC 3339 string; absent or null → undefined. */
export function timeField(body: Record<string, unknown>, name: string): Date | undefined {
  const value = body[name];
  if (value === undefined || value === null || value === "") return undefined;
  const date = typeof value === "string" && /^\d{4}-\d\d-\d\dT/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) throw invalid(`${name} is not a valid date-time`);
  return date;
}

/** A string field (absent → ""). */
export function textField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw invalid(`${name} must be a string`);
  return value;
}

/**
 * Matchers of a request body: `[{name, value, isRegex, isEqual}]` (Alertmanager) or with
 * `is_regex`/`is_equal` (REST). `isEqual` defaults to true, `isRegex` to false.
 */
export function matchersField(body: Record<string, unknown>, name = "matchers", snake = false): Matcher[] {
  const raw = body[name];
  if (!Array.isArray(raw)) throw invalid(`${name} must be an array`);
  if (raw.length > 1000) throw invalid("invalid silence: too many matchers");
  const [regexKey, equalKey] = snake ? ["is_regex", "is_equal"] : ["isRegex", "isEqual"];
  return raw.map((m: unknown, i) => {
    if (!m || typeof m !== "object" || Array.isArray(m)) throw invalid(`invalid label matcher ${i}`);
    const o = m as Record<string, unknown>;
    const flag = (key: string, fallback: boolean) => {
      const v = o[key];
      if (v === undefined || v === null) return fallback;
      if (typeof v !== "boolean") throw invalid(`invalid label matcher ${i}: ${key} must be a boolean`);
      return v;
    };
    if (typeof o.name !== "string" || typeof o.value !== "string")
      throw invalid(`invalid label matcher ${i}: name and value must be strings`);
    return { name: o.name, value: o.value, isRegex: flag(regexKey, false), isEqual: flag(equalKey, true) };
  });
}
