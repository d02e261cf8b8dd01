import type { alertV1 } from "@tocsin/proto";
import { isoTime } from "./time.js";

const SEVERITIES = ["critical", "high", "medium", "low", "info", "unknown"] as const;

/** Every severity with its count (0 when the service left it out). */
function toCountsJson(counts: alertV1.SeverityCount[]): Record<string, number> {
  const json: Record<string, number> = Object.fromEntries(SEVERITIES.map((s) => [s, 0]));
  for (const c of counts) json[c.severity] = c.count;
  return json;
}

function toOpenJson(open: alertV1.OpenAlertCounts | undefined) {
  return { triggered: toCountsJson(open?.triggered ?? []), acknowledged: toCountsJson(open?.acknowledged ?? []) };
}

const toBucketJson = (b: alertV1.StartedBucket) => ({ start: isoTime(b.start), counts: toCountsJson(b.counts) });

/** `GET /projects/:id/alert_management/overview` (docs/overview-api.md). */
export function toOverviewJson(o: alertV1.GetAlertOverviewResponse) {
  return {
    generated_at: isoTime(o.generatedAt),
    open_alerts: toOpenJson(o.open),
    alerts_started: { hourly: o.hourly.map(toBucketJson), daily: o.daily.map(toBucketJson) },
    noisiest_fingerprints: o.noisiestFingerprints.map((f) => ({
      fingerprint: f.fingerprint,
      title: f.title,
      service: f.service || null,
      events: f.events,
      alerts: f.alerts,
    })),
    noisiest_services: o.noisiestServices.map((s) => ({ service: s.service, events: s.events, alerts: s.alerts })),
    response_times: o.responseTimes.map((r) => ({
      days: r.days,
      acknowledged: r.acknowledged,
      mean_time_to_acknowledge_seconds: r.meanTimeToAcknowledgeSeconds ?? null,
      resolved: r.resolved,
      mean_time_to_resolve_seconds: r.meanTimeToResolveSeconds ?? null,
    })),
  };
}

/** One project of `GET /alert_management/open_alerts_by_project`. */
export function toProjectOpenAlertsJson(p: alertV1.ProjectOpenAlerts) {
  return {
    project_id: p.projectId,
    name: p.name,
    path_with_namespace: p.pathWithNamespace,
    tier: p.tier,
    access_level: p.accessLevel,
    open_alerts: p.open ? toOpenJson(p.open) : null,
  };
}
