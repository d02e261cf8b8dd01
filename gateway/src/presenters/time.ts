/** ISO 8601 UTC with milliseconds (`2026-11-21T10:00:00.000Z`), or null. */
export function isoTime(date: Date | undefined): string | null {
  return date ? date.toISOString() : null;
}
