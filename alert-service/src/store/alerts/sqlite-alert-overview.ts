import { prepared } from "@tocsin/store";
import type { Database } from "better-sqlite3";
import {
  type AlertOverviewStore,
  DAY_MS,
  HOUR_MS,
  NOISIEST_LIMIT,
  type OpenCount,
  type OverviewCounts,
  type OverviewWindow,
} from "../../domain/alerts/overview-model.js";
import { ACKNOWLEDGED, RESOLVED, severityOf, TRIGGERED } from "./codes.js";

/** Open statuses as literals, as in the partial index `alerts_open_by_severity` (else SQLite cannot use it). */
const OPEN = `(${TRIGGERED}, ${ACKNOWLEDGED})`;

/** Alerts started in [from, to) of one project: a range of the `alerts_project_started_counts` index. */
const IN_RANGE = "project_id = ? AND started_at >= ? AND started_at < ?";

const STARTED = `SELECT CAST((started_at - ?) / ? AS INTEGER) AS bucket, severity, COUNT(*) AS count
  FROM alerts INDEXED BY alerts_project_started_counts WHERE ${IN_RANGE} GROUP BY bucket, severity`;

/** One pass over the daily window: started alerts and the response sums, per day and severity. */
const DAILY = `SELECT CAST((started_at - ?) / ${DAY_MS} AS INTEGER) AS bucket, severity, COUNT(*) AS count,
    COUNT(acknowledged_at) AS acknowledged, COALESCE(SUM(MAX(acknowledged_at - started_at, 0)), 0) AS ack_ms,
    SUM(status = ${RESOLVED}) AS resolved,
    COALESCE(SUM(CASE WHEN status = ${RESOLVED} THEN MAX(ended_at - started_at, 0) END), 0) AS resolve_ms
  FROM alerts INDEXED BY alerts_project_started_counts WHERE ${IN_RANGE} GROUP BY bucket, severity`;

const NOISY_FINGERPRINTS = `SELECT fingerprint, SUM(events) AS events, COUNT(*) AS alerts, MAX(id) AS last_id
  FROM alerts INDEXED BY alerts_project_started_counts WHERE ${IN_RANGE} AND fingerprint IS NOT NULL
  GROUP BY fingerprint ORDER BY events DESC, alerts DESC, fingerprint LIMIT ${NOISIEST_LIMIT}`;

const NOISY_SERVICES = `SELECT service, SUM(events) AS events, COUNT(*) AS alerts
  FROM alerts INDEXED BY alerts_project_started_counts WHERE ${IN_RANGE} AND service <> ''
  GROUP BY service ORDER BY events DESC, alerts DESC, service LIMIT ${NOISIEST_LIMIT}`;

interface DailyRow {
  bucket: number;
  severity: number;
  count: number;
  acknowledged: number;
  ack_ms: number;
  resolved: number;
  resolve_ms: number;
}

/**
 * The overview's counts on SQLite: each a GROUP BY over an index range, computed in the database.
 * The hourly and daily passes and the open counts read only covering indexes; the two noisiest
 * lists read the rows of the last 7 days (`events` changes with every event: no index holds it).
 */
export class SqliteAlertOverview implements AlertOverviewStore {
  constructor(private readonly db: Database) {}

  async overview(projectId: number, w: OverviewWindow): Promise<OverviewCounts> {
    const range = (from: Date, to: Date) => [projectId, from.getTime(), to.getTime()];
    const hourly = prepared(this.db, STARTED).all(w.hourlyFrom.getTime(), HOUR_MS, ...range(w.hourlyFrom, w.hourlyTo)) as Array<{
      bucket: number;
      severity: number;
      count: number;
    }>;
    const daily = prepared(this.db, DAILY).all(w.dailyFrom.getTime(), ...range(w.dailyFrom, w.dailyTo)) as DailyRow[];
    const fingerprints = prepared(this.db, NOISY_FINGERPRINTS).all(...range(w.noisyFrom, w.dailyTo)) as Array<{
      fingerprint: string;
      events: number;
      alerts: number;
      last_id: number;
    }>;
    const latest = new Map(
      fingerprints.map((f) => [
        f.last_id,
        prepared(this.db, "SELECT title, service FROM alerts WHERE id = ?").get(f.last_id) as { title: string; service: string },
      ]),
    );
    const services = prepared(this.db, NOISY_SERVICES).all(...range(w.noisyFrom, w.dailyTo)) as Array<{
      service: string;
      events: number;
      alerts: number;
    }>;
    return {
      open: (await this.openCounts([projectId])).map(({ projectId: _, ...c }) => c),
      hourly: hourly.map((r) => ({ bucket: r.bucket, severity: severityOf(r.severity), count: r.count })),
      daily: daily.map((r) => ({ bucket: r.bucket, severity: severityOf(r.severity), count: r.count })),
      responses: daily.map((r) => ({
        bucket: r.bucket,
        acknowledged: r.acknowledged,
        acknowledgeMsSum: r.ack_ms,
        resolved: r.resolved,
        resolveMsSum: r.resolve_ms,
      })),
      noisiestFingerprints: fingerprints.map((f) => ({
        fingerprint: f.fingerprint,
        title: latest.get(f.last_id)?.title ?? "",
        service: latest.get(f.last_id)?.service ?? "",
        events: f.events,
        alerts: f.alerts,
      })),
      noisiestServices: services.map((s) => ({ service: s.service, events: s.events, alerts: s.alerts })),
    };
  }

  async openCounts(projectIds: number[]): Promise<Array<OpenCount & { projectId: number }>> {
    const out: Array<OpenCount & { projectId: number }> = [];
    // One statement per project (a prepared, cached one): each an index range of its open alerts.
    const sql = `SELECT status, severity, COUNT(*) AS count FROM alerts INDEXED BY alerts_open_by_severity
      WHERE project_id = ? AND status IN ${OPEN} GROUP BY status, severity`;
    for (const projectId of projectIds) {
      const rows = prepared(this.db, sql).all(projectId) as Array<{ status: number; severity: number; count: number }>;
      for (const r of rows) {
        out.push({
          projectId,
          status: r.status === ACKNOWLEDGED ? "acknowledged" : "triggered",
          severity: severityOf(r.severity),
          count: r.count,
        });
      }
    }
    return out;
  }
}
