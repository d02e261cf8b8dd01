import type { Db } from "mongodb";
import {
  type AlertOverviewStore,
  DAY_MS,
  type DailyResponse,
  HOUR_MS,
  NOISIEST_LIMIT,
  type NoisyFingerprint,
  type NoisyService,
  type OpenCount,
  type OverviewCounts,
  type OverviewWindow,
  type StartedCount,
} from "../../domain/alerts/overview-model.js";
import { ACKNOWLEDGED, RESOLVED, severityOf, TRIGGERED } from "./codes.js";
import type { AlertDoc } from "./mongo-alert-docs.js";
import { AlertScans, type Bound } from "./mongo-alert-scans.js";
import { COLLECTIONS } from "./mongo-common.js";

type WindowDoc = Pick<
  AlertDoc,
  "id" | "severity" | "status" | "events" | "fingerprint" | "service" | "started_at" | "ended_at" | "acknowledged_at"
>;

const WINDOW_FIELDS = {
  _id: 0,
  id: 1,
  severity: 1,
  status: 1,
  events: 1,
  fingerprint: 1,
  service: 1,
  started_at: 1,
  ended_at: 1,
  acknowledged_at: 1,
} as const;

/** Counts per (bucket, severity) of the docs in [from, from + n × lengthMs). */
function started(docs: WindowDoc[], from: Date, lengthMs: number): Map<string, StartedCount> {
  const counts = new Map<string, StartedCount>();
  for (const d of docs) {
    const bucket = Math.floor((d.started_at.getTime() - from.getTime()) / lengthMs);
    const key = `${bucket}:${d.severity}`;
    const c = counts.get(key) ?? { bucket, severity: severityOf(d.severity), count: 0 };
    c.count++;
    counts.set(key, c);
  }
  return counts;
}

function responses(docs: WindowDoc[], from: Date): DailyResponse[] {
  const days = new Map<number, DailyResponse>();
  for (const d of docs) {
    const bucket = Math.floor((d.started_at.getTime() - from.getTime()) / DAY_MS);
    const r = days.get(bucket) ?? { bucket, acknowledged: 0, acknowledgeMsSum: 0, resolved: 0, resolveMsSum: 0 };
    if (d.acknowledged_at) {
      r.acknowledged++;
      r.acknowledgeMsSum += Math.max(d.acknowledged_at.getTime() - d.started_at.getTime(), 0);
    }
    if (d.status === RESOLVED && d.ended_at) {
      r.resolved++;
      r.resolveMsSum += Math.max(d.ended_at.getTime() - d.started_at.getTime(), 0);
    }
    days.set(bucket, r);
  }
  return [...days.values()];
}

/** Groups by `key`, summing events; most events first, then most alerts, then by key (as the SQLite adapter). */
function noisiest(docs: WindowDoc[], key: (d: WindowDoc) => string | null | undefined) {
  const groups = new Map<string, { key: string; events: number; alerts: number; lastId: number }>();
  for (const d of docs) {
    const k = key(d);
    if (!k) continue;
    const g = groups.get(k) ?? { key: k, events: 0, alerts: 0, lastId: 0 };
    g.events += d.events;
    g.alerts++;
    g.lastId = Math.max(g.lastId, d.id);
    groups.set(k, g);
  }
  return [...groups.values()]
    .sort((a, b) => b.events - a.events || b.alerts - a.alerts || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, NOISIEST_LIMIT);
}

/**
 * The overview's counts on MongoDB: one range read of the 30-day window on the
 * `project_started_aid` index (only the counted fields), counted here, so that it runs alike on
 * MongoDB and FerretDB (whose aggregation support is partial). FerretDB 1.x reads the whole
 * collection for such a filter (docs/architecture.md): the overview is cheap on MongoDB only, and
 * on FerretDB its reads take their turn with the lists' (AlertScans).
 */
export class MongoAlertOverview implements AlertOverviewStore {
  constructor(
    private readonly db: Db,
    private readonly scans = new AlertScans(false),
  ) {}

  private get alerts() {
    return this.db.collection<AlertDoc>(COLLECTIONS.alerts);
  }

  overview(projectId: number, w: OverviewWindow, deadlineMs?: number): Promise<OverviewCounts> {
    return this.scans.run(deadlineMs, async (bound) => {
      const [docs, open] = await this.scans.pair(
        () =>
          this.alerts
            .find(
              { project_id: projectId, started_at: { $gte: w.dailyFrom, $lt: w.dailyTo } },
              { projection: WINDOW_FIELDS, ...bound() },
            )
            .toArray() as Promise<WindowDoc[]>,
        () => this.readOpenCounts([projectId], bound),
      );
      const inHours = docs.filter((d) => d.started_at >= w.hourlyFrom && d.started_at < w.hourlyTo);
      const inWeek = docs.filter((d) => d.started_at >= w.noisyFrom);
      const fingerprints = noisiest(inWeek, (d) => d.fingerprint);
      // By `_id`, one look-up each (at most NOISIEST_LIMIT): FerretDB 1.x would read the whole
      // collection for an `$in`.
      const latest = await Promise.all(
        fingerprints.map((f) =>
          this.alerts.findOne({ _id: String(f.lastId) }, { projection: { id: 1, title: 1, service: 1 }, ...bound() }),
        ),
      );
      const latestById = new Map(latest.flatMap((d) => (d ? [[d.id, d] as const] : [])));
      return {
        open: open.map(({ projectId: _, ...c }) => c),
        hourly: [...started(inHours, w.hourlyFrom, HOUR_MS).values()],
        daily: [...started(docs, w.dailyFrom, DAY_MS).values()],
        responses: responses(docs, w.dailyFrom),
        noisiestFingerprints: fingerprints.map(
          (f): NoisyFingerprint => ({
            fingerprint: f.key,
            title: latestById.get(f.lastId)?.title ?? "",
            service: latestById.get(f.lastId)?.service ?? "",
            events: f.events,
            alerts: f.alerts,
          }),
        ),
        noisiestServices: noisiest(inWeek, (d) => d.service).map(
          (s): NoisyService => ({ service: s.key, events: s.events, alerts: s.alerts }),
        ),
      };
    });
  }

  openCounts(projectIds: number[], deadlineMs?: number): Promise<Array<OpenCount & { projectId: number }>> {
    if (projectIds.length === 0) return Promise.resolve([]);
    return this.scans.run(deadlineMs, (bound) => this.readOpenCounts(projectIds, bound));
  }

  private async readOpenCounts(projectIds: number[], bound: () => Bound): Promise<Array<OpenCount & { projectId: number }>> {
    const docs = await this.alerts
      .find(
        { project_id: { $in: projectIds }, status: { $in: [TRIGGERED, ACKNOWLEDGED] } },
        { projection: { _id: 0, project_id: 1, status: 1, severity: 1 }, ...bound() },
      )
      .toArray();
    const counts = new Map<string, OpenCount & { projectId: number }>();
    for (const d of docs) {
      const key = `${d.project_id}:${d.status}:${d.severity}`;
      const c = counts.get(key) ?? {
        projectId: d.project_id,
        status: d.status === ACKNOWLEDGED ? ("acknowledged" as const) : ("triggered" as const),
        severity: severityOf(d.severity),
        count: 0,
      };
      c.count++;
      counts.set(key, c);
    }
    return [...counts.values()];
  }
}
