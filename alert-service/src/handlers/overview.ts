import type { alertV1 } from "@tocsin/proto";
import type { OpenAlerts, ResponseTimes, SeverityCounts, StartedBucket } from "../domain/alerts/overview.js";
import type { AlertsUseCases } from "../domain/alerts/use-cases.js";
import type { AlertHandlers } from "./alerts.js";

/** Severities with at least one alert (the others are implied zeros). */
const toCounts = (counts: SeverityCounts): alertV1.SeverityCount[] =>
  Object.entries(counts)
    .filter(([, count]) => count > 0)
    .map(([severity, count]) => ({ severity, count }));

const toOpen = (open: OpenAlerts): alertV1.OpenAlertCounts => ({
  triggered: toCounts(open.triggered),
  acknowledged: toCounts(open.acknowledged),
});

const toBucket = (b: StartedBucket): alertV1.StartedBucket => ({ start: b.start, counts: toCounts(b.counts) });

const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);

const toResponseTimes = (r: ResponseTimes): alertV1.ResponseTimes => ({
  days: r.days,
  acknowledged: r.acknowledged,
  meanTimeToAcknowledgeSeconds: seconds(r.meanTimeToAcknowledgeMs),
  resolved: r.resolved,
  meanTimeToResolveSeconds: seconds(r.meanTimeToResolveMs),
});

/** Thin gRPC handlers of the project overview and the dashboard's open alerts. */
export function overviewHandlers(useCases: AlertsUseCases): Pick<AlertHandlers, "getAlertOverview" | "listOpenAlertCounts"> {
  return {
    async getAlertOverview(req, ctx) {
      const o = await useCases.alertOverview(req.projectIdOrPath, ctx);
      return {
        generatedAt: o.generatedAt,
        open: toOpen(o.open),
        hourly: o.hourly.map(toBucket),
        daily: o.daily.map(toBucket),
        noisiestFingerprints: o.noisiestFingerprints,
        noisiestServices: o.noisiestServices,
        responseTimes: o.responseTimes.map(toResponseTimes),
      };
    },
    async listOpenAlertCounts(req, ctx) {
      const projects = await useCases.openAlertsByProject({ membership: req.membership, search: req.search }, ctx);
      return {
        projects: projects.map((p) => ({
          projectId: p.projectId,
          name: p.name,
          pathWithNamespace: p.fullPath,
          open: p.open && toOpen(p.open),
          accessLevel: p.accessLevel,
          tier: p.tier,
        })),
      };
    },
  };
}
