/** Times shown in a chosen IANA zone, with the browser's Intl only (display, not computation). */

export const viewerZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

const formats = new Map<string, Intl.DateTimeFormat>();
function format(zone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${zone}|${JSON.stringify(options)}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(undefined, { ...options, timeZone: zone });
    formats.set(key, f);
  }
  return f;
}

/** "25 Nov 2026, 09:00" in `zone`. */
export const formatIn = (ms: number, zone: string) => format(zone, { dateStyle: "medium", timeStyle: "short" }).format(ms);

/** "Wed 25" in `zone` (a day tick). */
export const dayLabelIn = (ms: number, zone: string) => format(zone, { weekday: "short", day: "numeric" }).format(ms);

/** The wall clock of `ms` in `zone` as if it were UTC, in ms (its difference to `ms` is the offset). */
function wallOf(ms: number, zone: string): number {
  const parts = format(zone, {
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    hourCycle: "h23",
  }).formatToParts(ms);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Date.UTC(n("year"), n("month") - 1, n("day"), n("hour"), n("minute"));
}

/** 00:00 of the day of `ms` in `zone`. */
export function midnightIn(ms: number, zone: string): number {
  const wall = wallOf(ms, zone);
  const dayStart = wall - (((wall % 86_400_000) + 86_400_000) % 86_400_000);
  const guess = dayStart - (wall - ms);
  return dayStart - (wallOf(guess, zone) - guess);
}
