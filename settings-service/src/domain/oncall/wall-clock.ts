import { DateTime, IANAZone } from "luxon";

/**
 * Wall-clock times of a schedule's zone. Luxon knows the zones' offsets and the calendar; this
 * file only fixes which instant a wall-clock time means when the zone's clock skips or repeats it:
 *
 * - **gap** (spring forward: 01:30 on 29 March 2026 does not exist in Europe/London): the time is
 *   moved forward by the length of the gap (01:30 → 02:30 BST), so a handover is never earlier
 *   than the wall-clock time asked for;
 * - **overlap** (fall back: 01:30 on 25 October 2026 happens twice in Europe/London): the first
 *   occurrence (01:30 BST, the earlier instant).
 *
 * That is the `compatible` disambiguation of JavaScript's Temporal and of RFC 5545. Luxon alone
 * picks either occurrence depending on the zone, so it is not left to it.
 */

/** A wall-clock date and time: `YYYY-MM-DDTHH:MM`. */
const WALL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;
/** A time of day: `HH:MM`. */
const TIME = /^(\d{2}):(\d{2})$/;

/** A date and time without a zone, as a UTC DateTime (UTC has no daylight saving: pure calendar). */
export type Wall = DateTime<true>;

export function isZone(name: string): boolean {
  return name.length > 0 && IANAZone.isValidZone(name);
}

/** `YYYY-MM-DDTHH:MM` → the wall-clock time, or undefined when it is not a real date and time. */
export function parseWall(text: string): Wall | undefined {
  const m = WALL.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute] = m.slice(1).map(Number) as [number, number, number, number, number];
  const wall = DateTime.fromObject({ year, month, day, hour, minute }, { zone: "utc" });
  return wall.isValid ? wall : undefined;
}

/** `HH:MM` → minutes after midnight, or undefined. */
export function parseTimeOfDay(text: string): number | undefined {
  const m = TIME.exec(text);
  if (!m) return undefined;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  return hour < 24 && minute < 60 ? hour * 60 + minute : undefined;
}

const offsetAt = (zone: IANAZone, ms: number) => zone.offset(ms) * 60_000;

/** The instant (epoch ms) of a wall-clock time in `zone`, by the gap and overlap rule above. */
export function instantOf(wall: Wall, zoneName: string): number {
  const zone = IANAZone.create(zoneName);
  const local = wall.toMillis();
  // Any change of offset near this time lies between these two; a day covers every zone's jump.
  const before = offsetAt(zone, local - 86_400_000);
  const after = offsetAt(zone, local + 86_400_000);
  // No zone changes its offset twice within two days: the same offset on both sides means none here.
  if (before === after) return local - before;
  const candidates = [local - before, local - after].filter((t) => offsetAt(zone, t) === local - t);
  if (candidates.length > 0) return Math.min(...candidates);
  // In the gap: the offset from before the jump moves the time forward by the gap's length.
  return local - before;
}

/** The calendar day (as a Wall at 00:00) of the instant `ms` in `zone`. */
export function dayOf(ms: number, zone: string): Wall {
  const d = DateTime.fromMillis(ms, { zone });
  return DateTime.fromObject({ year: d.year, month: d.month, day: d.day }, { zone: "utc" }) as Wall;
}
