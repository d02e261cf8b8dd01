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
  return parseRfc3339(value) ?? parseIsoLike(value);
}

const ZERO = 48;
const digit = (text: string, at: number) => {
  const d = text.charCodeAt(at) - ZERO;
  return d >= 0 && d <= 9 ? d : Number.NaN;
};
const two = (text: string, at: number) => digit(text, at) * 10 + digit(text, at + 1);

/** Days from 1970-01-01 to a proleptic Gregorian date (month 1–12), for any year (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The one shape monitors send (Alertmanager's `startsAt`/`endsAt`, Go's RFC 3339), read by
 * position without the general expression or its captures: `YYYY-MM-DDTHH:MM:SS`, an optional
 * fraction of 1–9 digits, then `Z` or `±HH:MM`. Undefined for anything else, which then goes the
 * general way (`parseIsoLike`) and gets the same answer it always got: an impossible date too
 * (the general way refuses it again). The general way's expression, captures and `Date`
 * checks cost 0.65–1.0 µs per time against 0.12–0.18 here; an Alertmanager alert has two
 * (`startsAt`, `endsAt`), 1.75 µs of the accepting thread per alert in a storm's profile.
 */
export function parseRfc3339(text: string): Date | undefined {
  const ms = rfc3339Ms(text);
  return ms === undefined ? undefined : new Date(ms);
}

/**
 * Epoch ms of a time the alert model holds (`startedAt`, `endedAt`: `toISOString`'s shape, which
 * `rfc3339Ms` reads by position), as `Date.parse` gives it; `Date.parse` itself for any other
 * shape. Processing reads one or two per alert (`DateParser` was ≈ 1,000 instructions of each).
 */
export function isoMs(text: string): number {
  return rfc3339Ms(text) ?? Date.parse(text);
}

/** `parseRfc3339` as epoch ms, without the Date. */
function rfc3339Ms(text: string): number | undefined {
  const n = text.length;
  if (n < 20 || text[4] !== "-" || text[7] !== "-" || text[10] !== "T" || text[13] !== ":" || text[16] !== ":") return undefined;
  const year = two(text, 0) * 100 + two(text, 2);
  const month = two(text, 5);
  const day = two(text, 8);
  const hour = two(text, 11);
  const minute = two(text, 14);
  const second = two(text, 17);
  let at = 19;
  let ms = 0;
  if (text[at] === ".") {
    const start = ++at;
    while (at < n && at - start < 9 && digit(text, at) >= 0) {
      if (at - start < 3) ms = ms * 10 + digit(text, at);
      at++;
    }
    if (at === start) return undefined;
    for (let k = Math.min(at - start, 3); k < 3; k++) ms *= 10;
  }
  const zone = text[at];
  let offset = 0;
  if (zone === "+" || zone === "-") {
    if (at !== n - 6 || text[at + 3] !== ":") return undefined;
    offset = (zone === "-" ? -1 : 1) * (two(text, at + 1) * 60 + two(text, at + 4));
  } else if (zone !== "Z" || at !== n - 1) return undefined;
  // A non-digit anywhere made its field NaN, and so the sum.
  if (Number.isNaN(year + month + day + hour + minute + second + offset)) return undefined;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) return undefined;
  if (day > (MONTH_DAYS[month - 1] as number) + (month === 2 && isLeap(year) ? 1 : 0)) return undefined;
  const seconds = ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute - offset) * 60 + second;
  return seconds * 1000 + ms;
}

/** The general way: every shape `parseTime` accepts. */
function parseIsoLike(value: string): Date | undefined {
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
