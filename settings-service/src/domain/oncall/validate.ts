import { paramMissing } from "@tocsin/core";
import { DateTime } from "luxon";
import { fieldError } from "./errors.js";
import type { ScheduleFields } from "./ports.js";
import { type ActivePeriod, ROTATION_UNITS, type RotationUnit } from "./types.js";
import { isZone, parseTimeOfDay, parseWall } from "./wall-clock.js";

/** Field rules of section 11. Every check runs before anything is written. */

const MAX_PARTICIPANTS = 100;
/** ISO 8601 with a zone designator: `…Z` or `…+01:00`. */
const WITH_OFFSET = /(Z|[+-]\d{2}(:?\d{2})?)$/;

export function required<T>(value: T | undefined | null, field: string): T {
  if (value === undefined || value === null || (typeof value === "string" && value === "")) throw paramMissing(field);
  return value;
}

function checkLength(value: string, field: string, min: number, max: number): void {
  if (value.trim().length < min) throw fieldError(field, "can't be blank");
  if (value.length > max) throw fieldError(field, `is too long (maximum is ${max} characters)`);
}

export function checkSchedule(fields: ScheduleFields): ScheduleFields {
  checkLength(fields.name, "name", 1, 200);
  checkLength(fields.description, "description", 0, 1000);
  if (!isZone(fields.timezone)) throw fieldError("timezone", "is not a valid IANA time zone (e.g. Europe/London)");
  return fields;
}

export interface RotationDraft {
  name: string;
  startsAt: string;
  endsAt: string | undefined;
  length: number;
  unit: string;
  activePeriod: ActivePeriod | undefined;
}

/** Checks a rotation's own fields (participants are checked against the members separately). */
export function checkRotation(draft: RotationDraft): RotationDraft & { unit: RotationUnit } {
  checkLength(draft.name, "name", 1, 200);
  const starts = parseWall(draft.startsAt);
  if (!starts) throw fieldError("starts_at", "must be a wall-clock date and time YYYY-MM-DDTHH:MM");
  if (draft.endsAt !== undefined) {
    const ends = parseWall(draft.endsAt);
    if (!ends) throw fieldError("ends_at", "must be a wall-clock date and time YYYY-MM-DDTHH:MM");
    if (ends <= starts) throw fieldError("ends_at", "must be after starts_at");
  }
  if (!Number.isInteger(draft.length) || draft.length < 1 || draft.length > 1000) {
    throw fieldError("rotation_length", "length must be an integer from 1 to 1000");
  }
  if (!ROTATION_UNITS.includes(draft.unit as RotationUnit))
    throw fieldError("rotation_length", "unit must be hours, days or weeks");
  if (draft.activePeriod) {
    if (draft.unit === "hours") throw fieldError("active_period", "is not allowed for hourly rotations");
    const start = parseTimeOfDay(draft.activePeriod.startTime);
    const end = parseTimeOfDay(draft.activePeriod.endTime);
    if (start === undefined || end === undefined) throw fieldError("active_period", "start_time and end_time must be HH:MM");
    if (start === end) throw fieldError("active_period", "end_time must differ from start_time");
  }
  return draft as RotationDraft & { unit: RotationUnit };
}

export function checkParticipantCount(usernames: readonly string[]): void {
  if (usernames.length < 1) throw fieldError("participants", "must name at least one user");
  if (usernames.length > MAX_PARTICIPANTS) throw fieldError("participants", `must name at most ${MAX_PARTICIPANTS} users`);
}

/** An ISO 8601 instant with an offset → Date; 400 naming the field otherwise. */
export function parseInstant(text: string, field: string): Date {
  const parsed = DateTime.fromISO(text, { setZone: true });
  if (!WITH_OFFSET.test(text) || !parsed.isValid) throw fieldError(field, "must be an ISO 8601 time with an offset");
  return parsed.toJSDate();
}

export function checkOverrideTimes(startsAt: Date, endsAt: Date): void {
  if (endsAt <= startsAt) throw fieldError("ends_at", "must be after starts_at");
  if (endsAt > DateTime.fromJSDate(startsAt, { zone: "utc" }).plus({ years: 1 }).toJSDate())
    throw fieldError("ends_at", "must be at most one year after starts_at");
}
