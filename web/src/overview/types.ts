import type { Severity } from "../alerts/types";
import type { Tier } from "../api/types";

export type SeverityCounts = Record<Severity, number>;

export interface OpenAlerts {
  triggered: SeverityCounts;
  acknowledged: SeverityCounts;
}

export interface StartedBucket {
  start: string;
  counts: SeverityCounts;
}

export interface ResponseTimes {
  days: number;
  acknowledged: number;
  mean_time_to_acknowledge_seconds: number | null;
  resolved: number;
  mean_time_to_resolve_seconds: number | null;
}

/** `GET /projects/:id/alert_management/overview` (docs/overview-api.md). */
export interface Overview {
  generated_at: string;
  open_alerts: OpenAlerts;
  alerts_started: { hourly: StartedBucket[]; daily: StartedBucket[] };
  noisiest_fingerprints: { fingerprint: string; title: string; service: string | null; events: number; alerts: number }[];
  noisiest_services: { service: string; events: number; alerts: number }[];
  response_times: ResponseTimes[];
}

/** One project of `GET /alert_management/open_alerts_by_project`. */
export interface ProjectOpenAlerts {
  project_id: number;
  name: string;
  path_with_namespace: string;
  tier: Tier;
  access_level: number;
  /** null below Developer. */
  open_alerts: OpenAlerts | null;
}
