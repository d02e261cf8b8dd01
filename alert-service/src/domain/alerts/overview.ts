import type { CallContext } from "@tocsin/core";
import { ACCESS, type Tier } from "../types.js";
import type { IngestDeps } from "./ingest.js";
import { SEVERITIES, type Severity } from "./model.js";
import {
  DAILY_BUCKETS,
  DAY_MS,
  type DailyResponse,
  HOUR_MS,
  HOURLY_BUCKETS,
  NOISY_DAYS,
  type NoisyFingerprint,
  type NoisyService,
  type OpenCount,
  overviewWindow,
  type StartedCount,
} from "./overview-model.js";

export type SeverityCounts = Record<Severity, number>;

export interface OpenAlerts {
  triggered: SeverityCounts;
  acknowledged: SeverityCounts;
}

export interface StartedBucket {
  start: Date;
  counts: SeverityCounts;
}

export interface ResponseTimes {
  days: number;
  acknowledged: number;
  /** Undefined when no alert of the window was acknowledged. */
  meanTimeToAcknowledgeMs: number | undefined;
  resolved: number;
  meanTimeToResolveMs: number | undefined;
}

export interface AlertOverview {
  generatedAt: Date;
  open: OpenAlerts;
  hourly: StartedBucket[];
  daily: StartedBucket[];
  noisiestFingerprints: NoisyFingerprint[];
  noisiestServices: NoisyService[];
  responseTimes: ResponseTimes[];
}

const zeroCounts = (): SeverityCounts => Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as SeverityCounts;

function toOpenAlerts(counts: OpenCount[]): OpenAlerts {
  const open = { triggered: zeroCounts(), acknowledged: zeroCounts() };
  for (const c of counts) open[c.status][c.severity] += c.count;
  return open;
}

function toBuckets(counts: StartedCount[], from: Date, n: number, lengthMs: number): StartedBucket[] {
  const buckets = Array.from({ length: n }, (_, i) => ({ start: new Date(from.getTime() + i * lengthMs), counts: zeroCounts() }));
  for (const c of counts) {
    const bucket = buckets[c.bucket];
    if (bucket) bucket.counts[c.severity] += c.count;
  }
  return buckets;
}

/** Response times over the last `days` days of the daily window. */
function responseTimes(responses: DailyResponse[], days: number): ResponseTimes {
  const sum = { acknowledged: 0, acknowledgeMsSum: 0, resolved: 0, resolveMsSum: 0 };
  for (const r of responses) {
    if (r.bucket < DAILY_BUCKETS - days) continue;
    sum.acknowledged += r.acknowledged;
    sum.acknowledgeMsSum += r.acknowledgeMsSum;
    sum.resolved += r.resolved;
    sum.resolveMsSum += r.resolveMsSum;
  }
  return {
    days,
    acknowledged: sum.acknowledged,
    meanTimeToAcknowledgeMs: sum.acknowledged ? sum.acknowledgeMsSum / sum.acknowledged : undefined,
    resolved: sum.resolved,
    meanTimeToResolveMs: sum.resolved ? sum.resolveMsSum / sum.resolved : undefined,
  };
}

/** The project overview (Developer+): one store call over the windows around now. */
export async function alertOverview(deps: IngestDeps, projectIdOrPath: string, ctx: CallContext): Promise<AlertOverview> {
  const project = await deps.projects.require(projectIdOrPath, ACCESS.developer, ctx);
  const now = deps.clock.now();
  const window = overviewWindow(now);
  const counts = await deps.stores.overview.overview(project.id, window, ctx.deadlineMs);
  return {
    generatedAt: now,
    open: toOpenAlerts(counts.open),
    hourly: toBuckets(counts.hourly, window.hourlyFrom, HOURLY_BUCKETS, HOUR_MS),
    daily: toBuckets(counts.daily, window.dailyFrom, DAILY_BUCKETS, DAY_MS),
    noisiestFingerprints: counts.noisiestFingerprints,
    noisiestServices: counts.noisiestServices,
    responseTimes: [responseTimes(counts.responses, NOISY_DAYS), responseTimes(counts.responses, DAILY_BUCKETS)],
  };
}

export interface ProjectOpenAlerts {
  projectId: number;
  name: string;
  fullPath: string;
  tier: Tier;
  accessLevel: number;
  /** Undefined below Developer (alerts are Developer+). */
  open: OpenAlerts | undefined;
}

/** Burning first: most triggered alerts of each severity from critical down, then acknowledged likewise, then by path. */
function burningFirst(a: ProjectOpenAlerts, b: ProjectOpenAlerts): number {
  for (const status of ["triggered", "acknowledged"] as const) {
    for (const s of SEVERITIES) {
      const d = (b.open?.[status][s] ?? 0) - (a.open?.[status][s] ?? 0);
      if (d !== 0) return d;
    }
  }
  return a.fullPath.localeCompare(b.fullPath);
}

/**
 * Every project the caller sees, with its open alerts by severity where the caller is Developer+
 * (alerts are Developer+), burning projects first; one store call for all of them.
 */
export async function openAlertsByProject(
  deps: IngestDeps,
  filter: { membership: boolean; search: string },
  ctx: CallContext,
): Promise<ProjectOpenAlerts[]> {
  if (!deps.projects.visible) throw new Error("the project directory cannot list projects");
  const projects = await deps.projects.visible(filter, ctx);
  const readable = (p: { accessLevel: number }) => p.accessLevel >= ACCESS.developer;
  const counts = await deps.stores.overview.openCounts(
    projects.filter(readable).map((p) => p.id),
    ctx.deadlineMs,
  );
  const byProject = new Map<number, OpenCount[]>();
  for (const c of counts) byProject.set(c.projectId, [...(byProject.get(c.projectId) ?? []), c]);
  return projects
    .map((p) => ({
      projectId: p.id,
      name: p.name,
      fullPath: p.fullPath,
      tier: p.tier,
      accessLevel: p.accessLevel,
      open: readable(p) ? toOpenAlerts(byProject.get(p.id) ?? []) : undefined,
    }))
    .sort(burningFirst);
}
