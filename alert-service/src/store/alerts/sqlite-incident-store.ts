import { deleteInChunks, prepared, writeWhenFree } from "@tocsin/store";
import type { Database } from "better-sqlite3";
import {
  type AlertOutcome,
  type AlertSettings,
  DEFAULT_ALERT_SETTINGS,
  type Incident,
  type IncidentStatus,
} from "../../domain/alerts/model.js";
import type { IncidentStore, IngestAnswer, OpenIncident, RequestLog } from "../../domain/alerts/ports.js";
import { severityCode, severityOf } from "./codes.js";
import { outcomeJson } from "./json-text.js";
import { OpRecords } from "./sqlite-op-records.js";
import { nextCounter } from "./sqlite-schema.js";

interface IncidentRow {
  id: number;
  project_id: number;
  iid: number;
  alert_id: number;
  alert_iid: number;
  title: string;
  severity: number;
  status: string;
  created_at: number;
  closed_at: number | null;
}

const toIncident = (r: IncidentRow): Incident => ({
  id: r.id,
  projectId: r.project_id,
  iid: r.iid,
  title: r.title,
  severity: severityOf(r.severity),
  status: r.status as IncidentStatus,
  alertId: r.alert_id,
  alertIid: r.alert_iid,
  createdAt: new Date(r.created_at),
  closedAt: r.closed_at === null ? undefined : new Date(r.closed_at),
});

export class SqliteIncidentStore implements IncidentStore {
  constructor(private readonly db: Database) {}

  private one(sql: string, ...args: unknown[]): Incident | undefined {
    const r = prepared(this.db, sql).get(...args) as IncidentRow | undefined;
    return r ? toIncident(r) : undefined;
  }

  async openForAlert(input: OpenIncident) {
    const tx = this.db.transaction(() => {
      const existing = this.one("SELECT * FROM incidents WHERE alert_id = ?", input.alertId);
      if (existing) return { incident: existing, created: false };
      const iid = nextCounter(this.db, `incident_iid:${input.projectId}`);
      const { lastInsertRowid } = prepared(
        this.db,
        "INSERT INTO incidents (project_id, iid, alert_id, alert_iid, title, severity, status, created_at) VALUES (?,?,?,?,?,?,'open',?)",
      ).run(
        input.projectId,
        iid,
        input.alertId,
        input.alertIid,
        input.title ?? `New: Incident ${iid}`,
        severityCode(input.severity),
        input.at.getTime(),
      );
      return { incident: this.one("SELECT * FROM incidents WHERE id = ?", lastInsertRowid) as Incident, created: true };
    });
    return tx();
  }

  async close(incidentId: number, at: Date) {
    const { changes } = prepared(
      this.db,
      "UPDATE incidents SET status = 'closed', closed_at = ? WHERE id = ? AND status = 'open'",
    ).run(at.getTime(), incidentId);
    return changes ? this.one("SELECT * FROM incidents WHERE id = ?", incidentId) : undefined;
  }

  async getByAlert(alertId: number) {
    return this.one("SELECT * FROM incidents WHERE alert_id = ?", alertId);
  }

  async get(projectId: number, iid: number) {
    return this.one("SELECT * FROM incidents WHERE project_id = ? AND iid = ?", projectId, iid);
  }

  async list(projectId: number, status: IncidentStatus | undefined, offset: number, limit: number) {
    const clause = status ? "project_id = ? AND status = ?" : "project_id = ?";
    const args = status ? [projectId, status] : [projectId];
    const { n } = prepared(this.db, `SELECT COUNT(*) AS n FROM incidents WHERE ${clause}`).get(...args) as { n: number };
    const rows = prepared(this.db, `SELECT * FROM incidents WHERE ${clause} ORDER BY iid DESC LIMIT ? OFFSET ?`).all(
      ...args,
      limit,
      offset,
    ) as IncidentRow[];
    return { incidents: rows.map(toIncident), total: n };
  }

  async settings(projectId: number): Promise<AlertSettings> {
    const r = prepared(this.db, "SELECT * FROM alert_settings WHERE project_id = ?").get(projectId) as
      | { create_incident: number; auto_close_incident: number; send_email: number }
      | undefined;
    if (!r) return { ...DEFAULT_ALERT_SETTINGS };
    return { createIncident: !!r.create_incident, autoCloseIncident: !!r.auto_close_incident, sendEmail: !!r.send_email };
  }

  async updateSettings(projectId: number, change: Partial<AlertSettings>, at: Date) {
    const tx = this.db.transaction(() => {
      const merged = mergeSettings(this.settingsSync(projectId), change);
      prepared(
        this.db,
        `INSERT INTO alert_settings (project_id, create_incident, auto_close_incident, send_email, updated_at) VALUES (?,?,?,?,?)
           ON CONFLICT(project_id) DO UPDATE SET create_incident = excluded.create_incident,
             auto_close_incident = excluded.auto_close_incident, send_email = excluded.send_email, updated_at = excluded.updated_at`,
      ).run(projectId, +merged.createIncident, +merged.autoCloseIncident, +merged.sendEmail, at.getTime());
      return merged;
    });
    // An API call, on the accepting event loop: waits for the processing thread's batch on a
    // timer (writeWhenFree), as every write of the main thread to alert.db does.
    return writeWhenFree(this.db, () => tx.immediate());
  }

  private settingsSync(projectId: number): AlertSettings | undefined {
    const r = prepared(this.db, "SELECT * FROM alert_settings WHERE project_id = ?").get(projectId) as
      | { create_incident: number; auto_close_incident: number; send_email: number }
      | undefined;
    return r && { createIncident: !!r.create_incident, autoCloseIncident: !!r.auto_close_incident, sendEmail: !!r.send_email };
  }
}

/** Current settings (or the defaults) with the set fields of `change`. */
function mergeSettings(current: AlertSettings | undefined, change: Partial<AlertSettings>): AlertSettings {
  const merged = { ...DEFAULT_ALERT_SETTINGS, ...current };
  for (const [k, v] of Object.entries(change) as Array<[keyof AlertSettings, boolean | undefined]>)
    if (v !== undefined) merged[k] = v;
  return merged;
}

export class SqliteRequestLog implements RequestLog {
  /** The connection's op records (`alert_ops`), shared with the alert store. */
  private readonly ops: OpRecords;

  constructor(private readonly db: Database) {
    this.ops = OpRecords.of(db);
  }

  async reserve(integrationId: number, key: string, answer: IngestAnswer, expiresAt: Date, now: Date) {
    const tx = this.db.transaction(() => {
      const row = prepared(this.db, "SELECT answer, expires_at FROM ingest_idempotency WHERE integration_id = ? AND key = ?").get(
        integrationId,
        key,
      ) as { answer: string; expires_at: number } | undefined;
      if (row && row.expires_at > now.getTime()) return { answer: JSON.parse(row.answer) as IngestAnswer, existed: true };
      prepared(
        this.db,
        "INSERT OR REPLACE INTO ingest_idempotency (integration_id, key, answer, expires_at) VALUES (?,?,?,?)",
      ).run(integrationId, key, JSON.stringify(answer), expiresAt.getTime());
      return { answer, existed: false };
    });
    // IMMEDIATE: a deferred transaction that reads, then writes, gets SQLITE_BUSY at once (no busy
    // wait) when the processing thread committed to alert.db since the read began. On the
    // accepting event loop, while the processing thread's batch holds alert.db: tried again on a
    // timer, never asleep in SQLite's busy handler (writeWhenFree).
    return writeWhenFree(this.db, () => tx.immediate());
  }

  /** The outcome goes into the job's op record (`alert_ops`, see `OpRecords`): a row of its own when the job changed nothing. */
  async recordJob(jobId: string, outcome: AlertOutcome, at: Date) {
    this.ops.outcome(jobId, outcomeJson(outcome), at.getTime());
  }

  /**
   * One read of the job's op record: its outcome, and whether it changed an alert already. Every
   * change of a job writes its op record (op = job id) in the change's own transaction, so
   * without one the job has changed nothing and need not look for its earlier change.
   */
  async startJob(jobId: string) {
    this.ops.flush();
    const r = prepared(this.db, "SELECT outcome, alert_id FROM alert_ops WHERE op = ?").get(jobId) as
      | { outcome: string | null; alert_id: number | null }
      | undefined;
    if (!r) this.ops.unrecorded(jobId);
    return {
      outcome: r?.outcome == null ? undefined : (JSON.parse(r.outcome) as AlertOutcome),
      firstRun: r?.alert_id == null,
    };
  }

  async jobOutcomes(jobIds: readonly string[]) {
    this.ops.flush();
    const rows = prepared(
      this.db,
      "SELECT op, outcome FROM alert_ops WHERE op IN (SELECT value FROM json_each(?)) AND outcome IS NOT NULL",
    ).all(JSON.stringify(jobIds)) as { op: string; outcome: string }[];
    return new Map(rows.map((r) => [r.op, JSON.parse(r.outcome) as AlertOutcome]));
  }

  /** In chunks (`deleteInChunks`): after a storm these tables hold millions of rows. */
  async purge(now: Date, before: Date) {
    this.ops.flush();
    await deleteInChunks(
      this.db,
      "DELETE FROM ingest_idempotency WHERE rowid IN (SELECT rowid FROM ingest_idempotency WHERE expires_at <= ? LIMIT ?)",
      [now.getTime()],
    );
    await deleteInChunks(this.db, "DELETE FROM alert_ops WHERE op IN (SELECT op FROM alert_ops WHERE at < ? LIMIT ?)", [
      before.getTime(),
    ]);
  }
}
