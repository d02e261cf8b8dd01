/** Time formats accepted in payloads. */

const ISO_LIKE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

function offsetMinutes(zone: string | undefined): number {
  if (!zone || /^(Z|UTC|GMT)$/i.test(zone)) return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  return sign * (hours * 60 + minutes);
}

/**
 * ISO 8601 (`2026-11-21T10:00:00Z`, `...+02:00`, fractions, date only) and Ruby's `Time#to_s`
 * shape (`2026-11-21 10:00:00 +0100`). No zone means UTC. Anything else → undefined.
 */
export function parseTime(value: unknown): Date | undefined {
  if (typeof value !== "string") return undefined;
  const m = ISO_LIKE.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "0", zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const ms = Number(frac.padEnd(3, "0").slice(0, 3));
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  const check = new Date(0);
  check.setUTCFullYear(year, month - 1, day);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  const utc = check.getTime() + ((Number(h) * 60 + Number(mi)) * 60 + Number(s)) * 1000 + ms;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return undefined;
  const at = new Date(utc - offsetMinutes(zone) * 60_000);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

const EPOCH_MS_DIGITS = 13;

/** `end_time`: as `parseTime`, and also 13-digit epoch milliseconds (a number or numeric text). */
export function parseEndTime(value: unknown): Date | undefined {
  if (typeof value === "number" && Number.isInteger(value) && String(Math.abs(value)).length === EPOCH_MS_DIGITS) {
    return new Date(value);
  }
  if (typeof value === "string" && /^\d{13}$/.test(value.trim())) return new Date(Number(value.trim()));
  return parseTime(value);
}
