import type { Override, RotationFields, Shift } from "./types.js";
import { dayOf, instantOf, parseTimeOfDay, parseWall, type Wall } from "./wall-clock.js";

/**
 * The on-call computation (PRODUCT.md section 11): pure, no I/O. A rotation hands over every
 * `length` units from `startsAt` through its participants in order. `days` and `weeks` are
 * calendar time in the schedule's zone (each handover is `startsAt`'s wall-clock time on its day,
 * read by the gap/overlap rule of wall-clock.ts); `hours` are exact hours from `startsAt`'s
 * instant. An active period cuts each shift to its daily windows. An override beats every
 * rotation for its time. "Who is on call at t" is the same computation over `[t, t + 1 ms)`.
 */

type RotationInput = Pick<RotationFields, "startsAt" | "endsAt" | "length" | "unit" | "activePeriod" | "participantIds"> & {
  id: number;
};
type OverrideInput = Pick<Override, "id" | "userId" | "startsAt" | "endsAt">;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

interface Interval {
  startsAt: number;
  endsAt: number;
}

/** The instant of handover number `k` (0 = `startsAt`); each is computed once per call. */
function handoverFn(rotation: RotationInput, zone: string): (k: number) => number {
  const anchor = parseWall(rotation.startsAt) as Wall;
  if (rotation.unit === "hours") {
    const start = instantOf(anchor, zone);
    return (k) => start + k * rotation.length * HOUR_MS;
  }
  const days = rotation.length * (rotation.unit === "weeks" ? 7 : 1);
  const known = new Map<number, number>();
  return (k) => {
    let at = known.get(k);
    if (at === undefined) {
      at = instantOf(anchor.plus({ days: k * days }) as Wall, zone);
      known.set(k, at);
    }
    return at;
  };
}

function nominalPeriodMs(rotation: RotationInput): number {
  const unitMs = rotation.unit === "hours" ? HOUR_MS : rotation.unit === "days" ? DAY_MS : 7 * DAY_MS;
  return rotation.length * unitMs;
}

/** The active period's daily windows that meet `[from, to)`, in order. */
function dailyWindows(period: NonNullable<RotationInput["activePeriod"]>, zone: string, from: number, to: number): Interval[] {
  const start = parseTimeOfDay(period.startTime) as number;
  const end = parseTimeOfDay(period.endTime) as number;
  const overnight = end <= start;
  const windows: Interval[] = [];
  // A window that began the day before `from` may still be running (overnight).
  for (let day = dayOf(from, zone).minus({ days: 1 }) as Wall; ; day = day.plus({ days: 1 }) as Wall) {
    const startsAt = instantOf(day.plus({ minutes: start }) as Wall, zone);
    if (startsAt >= to) return windows;
    const endsAt = instantOf(day.plus({ days: overnight ? 1 : 0, minutes: end }) as Wall, zone);
    if (endsAt > from) windows.push({ startsAt, endsAt });
  }
}

/** One rotation's shifts that meet `[from, to)`, with their own bounds (not cut to the window). */
function rotationShifts(rotation: RotationInput, zone: string, from: number, to: number): Shift[] {
  const handover = handoverFn(rotation, zone);
  const ends = rotation.endsAt ? instantOf(parseWall(rotation.endsAt) as Wall, zone) : Number.POSITIVE_INFINITY;
  const count = rotation.participantIds.length;
  if (count === 0) return [];
  // An estimate from the nominal length (daylight saving moves it by hours, not shifts), then exact steps.
  let k = Math.max(0, Math.floor((from - handover(0)) / nominalPeriodMs(rotation)) - 1);
  while (handover(k + 1) <= from) k++;
  const shifts: Shift[] = [];
  for (; handover(k) < Math.min(to, ends); k++) {
    const slot = { startsAt: handover(k), endsAt: Math.min(handover(k + 1), ends) };
    const userId = rotation.participantIds[k % count] as number;
    const parts = rotation.activePeriod
      ? clipToWindows(slot, dailyWindows(rotation.activePeriod, zone, Math.max(slot.startsAt, from), Math.min(slot.endsAt, to)))
      : [slot];
    for (const part of parts) {
      if (part.endsAt > from && part.startsAt < to) shifts.push({ rotationId: rotation.id, overrideId: null, userId, ...part });
    }
  }
  return shifts;
}

function clipToWindows(slot: Interval, windows: Interval[]): Interval[] {
  return windows
    .map((w) => ({ startsAt: Math.max(slot.startsAt, w.startsAt), endsAt: Math.min(slot.endsAt, w.endsAt) }))
    .filter((w) => w.endsAt > w.startsAt);
}

/** `interval` without the parts that `cuts` cover (cuts sorted by start). */
function subtract(interval: Interval, cuts: Interval[]): Interval[] {
  const left: Interval[] = [];
  let cursor = interval.startsAt;
  for (const cut of cuts) {
    if (cut.endsAt <= cursor || cut.startsAt >= interval.endsAt) continue;
    if (cut.startsAt > cursor) left.push({ startsAt: cursor, endsAt: cut.startsAt });
    cursor = Math.max(cursor, cut.endsAt);
  }
  if (cursor < interval.endsAt) left.push({ startsAt: cursor, endsAt: interval.endsAt });
  return left;
}

const byTime = (a: Shift, b: Shift) =>
  a.startsAt - b.startsAt ||
  a.endsAt - b.endsAt ||
  (a.rotationId ?? Number.MAX_SAFE_INTEGER) - (b.rotationId ?? Number.MAX_SAFE_INTEGER);

/**
 * Every shift of a schedule that meets `[from, to)` (epoch ms), in time order: each rotation's
 * shifts with the overrides' time cut out of them, and the overrides themselves. Rotations may
 * overlap: everyone on shift is on call.
 */
export function scheduleShifts(
  zone: string,
  rotations: readonly RotationInput[],
  overrides: readonly OverrideInput[],
  from: number,
  to: number,
): Shift[] {
  const cuts = overrides
    .map((o) => ({ startsAt: o.startsAt.getTime(), endsAt: o.endsAt.getTime(), id: o.id, userId: o.userId }))
    .sort((a, b) => a.startsAt - b.startsAt);
  const shifts: Shift[] = [];
  for (const rotation of rotations) {
    for (const shift of rotationShifts(rotation, zone, from, to)) {
      for (const part of subtract(shift, cuts)) shifts.push({ ...shift, ...part });
    }
  }
  for (const cut of cuts) {
    if (cut.endsAt > from && cut.startsAt < to) {
      shifts.push({ rotationId: null, overrideId: cut.id, userId: cut.userId, startsAt: cut.startsAt, endsAt: cut.endsAt });
    }
  }
  // A part left by an override may now lie outside the window.
  return shifts.filter((s) => s.endsAt > from && s.startsAt < to).sort(byTime);
}

/** The users on call at `at` (epoch ms), each once, in the order their shifts are listed. */
export function onCallAt(
  zone: string,
  rotations: readonly RotationInput[],
  overrides: readonly OverrideInput[],
  at: number,
): number[] {
  return [...new Set(scheduleShifts(zone, rotations, overrides, at, at + 1).map((s) => s.userId))];
}
