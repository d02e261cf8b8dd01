import type { AlertStatus, Severity } from "./model.js";

/**
 * The windows of a project overview, all aligned to UTC: 24 hourly buckets ending with the hour
 * that holds now, 30 daily buckets ending with today; the noisiest list and the 7-day response
 * times cover the last 7 of those days. Every window ends (exclusive) at the end of its last bucket.
 */
export interface OverviewWindow {
  hourlyFrom: Date;
  hourlyTo: Date;
  dailyFrom: Date;
  dailyTo: Date;
  noisyFrom: Date;
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
export const HOURLY_BUCKETS = 24;
export const DAILY_BUCKETS = 30;
export const NOISY_DAYS = 7;
export const NOISIEST_LIMIT = 10;

/** The overview windows around `now`. */
export function overviewWindow(now: Date): OverviewWindow {
  const hourEnd = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS;
  const dayEnd = Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS;
  return {
    hourlyFrom: new Date(hourEnd - HOURLY_BUCKETS * HOUR_MS),
    hourlyTo: new Date(hourEnd),
    dailyFrom: new Date(dayEnd - DAILY_BUCKETS * DAY_MS),
    dailyTo: new Date(dayEnd),
    noisyFrom: new Date(dayEnd - NOISY_DAYS * DAY_MS),
  };
}

/** Open alerts (triggered or acknowledged) of one severity. */
export interface OpenCount {
  status: Extract<AlertStatus, "triggered" | "acknowledged">;
  severity: Severity;
  count: number;
}

/** Alerts started in bucket `bucket` (0 = the window's first) with one severity. */
export interface StartedCount {
  bucket: number;
  severity: Severity;
  count: number;
}

/**
 * Per day of the daily window: started alerts, those acknowledged and the sum of their times to
 * (first) acknowledgement, those resolved and the sum of their times to resolve (negative times,
 * from clocks that disagree, count as 0).
 */
export interface DailyResponse {
  bucket: number;
  acknowledged: number;
  acknowledgeMsSum: number;
  resolved: number;
  resolveMsSum: number;
}

export interface NoisyFingerprint {
  fingerprint: string;
  /** Of the fingerprint's latest alert (highest id) in the window. */
  title: string;
  service: string;
  /** Sum of the `events` of the window's alerts with the fingerprint. */
  events: number;
  alerts: number;
}

export interface NoisyService {
  service: string;
  events: number;
  alerts: number;
}

/** What the store counts for an overview; buckets without alerts are left out. */
export interface OverviewCounts {
  open: OpenCount[];
  hourly: StartedCount[];
  daily: StartedCount[];
  responses: DailyResponse[];
  /** Most events first, then most alerts, then by fingerprint / service; at most `NOISIEST_LIMIT`. */
  noisiestFingerprints: NoisyFingerprint[];
  noisiestServices: NoisyService[];
}

/**
 * Counts over a project's alerts, by their start time (`started_at`). Every call is a range
 * query on the (project, started_at) index, or on (project, status) for open alerts: its cost
 * follows the alerts in the window, never the project's history.
 */
export interface AlertOverviewStore {
  /** `deadlineMs` (both): the caller's deadline (epoch ms), past which the counts are not worth reading. */
  overview(projectId: number, window: OverviewWindow, deadlineMs?: number): Promise<OverviewCounts>;
  /** Open alerts of each project, by status and severity (projects without any are left out). */
  openCounts(projectIds: number[], deadlineMs?: number): Promise<Array<OpenCount & { projectId: number }>>;
}
