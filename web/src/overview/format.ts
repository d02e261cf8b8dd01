import { SEVERITIES } from "../alerts/types";
import type { SeverityCounts } from "./types";

/** "35 min", "2 h 5 min", "3 d 4 h", "40 s"; "—" when there is nothing to average. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return "—";
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

export const total = (counts: SeverityCounts) => SEVERITIES.reduce((n, s) => n + counts[s], 0);

/** "3 critical, 1 low", or "none". */
export function countsText(counts: SeverityCounts): string {
  const parts = SEVERITIES.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`);
  return parts.length ? parts.join(", ") : "none";
}

/** UTC labels of the buckets: hours as `10:00`, days as `Nov 21`. */
const dayLabel = new Intl.DateTimeFormat("en", { month: "short", day: "numeric", timeZone: "UTC" });
export const bucketLabel = (iso: string, unit: "hour" | "day") =>
  unit === "hour" ? `${iso.slice(11, 16)}` : dayLabel.format(new Date(iso));
