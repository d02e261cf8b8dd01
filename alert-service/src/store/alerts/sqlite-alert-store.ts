import { isUniqueViolation, prepared } from "@tocsin/store";
import type { Database, Statement } from "better-sqlite3";
import type { ActivityEntry, Alert, AlertStatus } from "../../domain/alerts/model.js";
import type { AlertQuery, AlertStore, NewAlert } from "../../domain/alerts/ports.js";
import { isoMs } from "../../domain/alerts/times.js";
import { ACKNOWLEDGED, opApplied, openAlertExists, RESOLVED, severityCode, severityOf, statusCode } from "./codes.js";
import { notesJson } from "./json-text.js";
import { readActivity } from "./sqlite-alert-activity.js";
import { listAlerts } from "./sqlite-alert-list.js";
import { type AlertRow, toAlert } from "./sqlite-alert-rows.js";
import { OpRecords, rollBackEnclosing } from "./sqlite-op-records.js";
import { OpenFingerprints, REOPEN_REFUSED } from "./sqlite-open-fingerprints.js";

/**
 * The new alert's row, with the notes written with it (`notes`, schema version 5); its iid is the
 * project's next (`NEXT_IID`, read in the same write transaction; alerts are never deleted: no
 * counter needed). VALUES, not a SELECT from `alerts` with RETURNING: an insert that reads its own
 * table and one that returns rows each go through a temporary table of SQLite's (2 µs of the
 * ≈ 22 per new alert, bench/notes/2026-12-02-insert-values.md); the id is the insert's rowid.
 */
const INSERT_ALERT = `INSERT INTO alerts (project_id, iid, integration_id, title, description, severity, status, service,
    monitoring_tool, hosts, events, fingerprint, started_at, ended_at, environment_name, payload, created_at, updated_at, notes)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * A new alert counted in `alert_counts` (the list's totals), a statement of its own after the
 * insert rather than a trigger of it: a statement that fires a trigger gets a statement journal,
 * which made the insert about a third dearer (schema version 7, `V6_TO_V7` in sqlite-schema.ts).
 */
const COUNT_NEW_ALERT = `INSERT INTO alert_counts (project_id, status, n) VALUES (?, ?, 1)
  ON CONFLICT (project_id, status) DO UPDATE SET n = n + 1`;

/** A project's next iid (`alerts (project_id, iid)` is unique: its index's last entry). */
const NEXT_IID = "SELECT COALESCE(MAX(iid), 0) + 1 AS iid FROM alerts WHERE project_id = ?";

export class SqliteAlertStore implements AlertStore {
  /** Transactions built once (`db.transaction` wraps a function; building it per call costs). */
  private readonly insertTx: (input: NewAlert) => Alert;
  private readonly applyOpTx: (
    alertId: number,
    opKey: string,
    at: number,
    update: Statement,
    args: unknown[],
  ) => AlertRow | undefined;
  private readonly eventSql: Statement;
  private readonly resolveSql: Statement;
  /** The one-open-alert rule's look-up (schema version 6). */
  private readonly fingerprints: OpenFingerprints;
  /** The connection's op records (`alert_ops`), shared with the request log. */
  private readonly ops: OpRecords;

  /** `mergeFingerprintsAt`: tests; see `OpenFingerprints`. */
  constructor(
    private readonly db: Database,
    mergeFingerprintsAt?: number,
  ) {
    this.fingerprints = OpenFingerprints.of(db, mergeFingerprintsAt);
    this.ops = OpRecords.of(db);
    // IMMEDIATE: the one-open-alert rule is read before the insert; the write lock taken first
    // keeps another connection from committing in between (a deferred one would fail to upgrade).
    const insert = db.transaction((input: NewAlert) => this.insertNow(input));
    this.insertTx = (input) => insert.immediate(input);
    this.applyOpTx = db.transaction((alertId: number, opKey: string, at: number, update: Statement, args: unknown[]) =>
      this.applyOpNow(alertId, opKey, at, update, args),
    );
    // No RETURNING: the row is read after a change (RETURNING goes through a temporary table).
    this.eventSql = db.prepare(`UPDATE alerts SET events = events + 1, updated_at = ? WHERE id = ? AND status <> ${RESOLVED}`);
    this.resolveSql = db.prepare(
      `UPDATE alerts SET status = ${RESOLVED}, ended_at = ?, updated_at = ? WHERE id = ? AND status <> ${RESOLVED}`,
    );
  }

  private row(sql: string, ...args: unknown[]): Alert | undefined {
    const r = prepared(this.db, sql).get(...args) as AlertRow | undefined;
    return r ? toAlert(r) : undefined;
  }

  /**
   * `update` and its op record: in `applyOpTx`, or joined to an enclosing transaction without a
   * savepoint (see `insertNow`). The op is looked up first, in the same transaction, so its
   * record cannot be refused; should writing it fail, the enclosing transaction is rolled back
   * whole (the batch fails and runs again) rather than keep the change without its op.
   */
  private applyOpNow(alertId: number, opKey: string, at: number, update: Statement, args: unknown[]) {
    if (this.ops.hasChange(opKey)) return undefined;
    if (update.run(...args).changes === 0) return undefined;
    const row = prepared(this.db, "SELECT * FROM alerts WHERE id = ?").get(alertId) as AlertRow;
    try {
      this.ops.change(opKey, alertId, 0, at);
    } catch (err) {
      rollBackEnclosing(this.db);
      throw err;
    }
    return row;
  }

  /**
   * The insert with its notes (in the row: no `alert_activity` rows) and its op record. The alert
   * is built from what was written (no read back). In `insertTx`, which rolls the insert back when
   * the op was applied already. `joined`: inside an enclosing transaction (a processing batch, see
   * `AlertsStores.batch`) without a savepoint of its own — a savepoint copies each page the insert
   * touches that the batch had dirtied already (≈ 8 per new alert), and the insert undoes itself
   * more cheaply: a failed statement leaves nothing (the unique violation of an open
   * fingerprint); an op applied already deletes the alert just inserted (its delete trigger takes
   * its count back); a count or an op record that fails to be written rolls the enclosing
   * transaction back.
   */
  private insertNow(input: NewAlert, joined = false): Alert {
    const a = input.alert;
    const at = input.at.getTime();
    const endedAt = input.status !== "resolved" ? null : a.endedAt === undefined ? at : isoMs(a.endedAt);
    const startedAt = isoMs(a.startedAt);
    // The one-open-alert rule, checked before anything is written (a refusal leaves nothing).
    const open = input.status !== "resolved" && a.fingerprint !== undefined;
    if (open && this.fingerprints.isOpen(input.projectId, a.fingerprint as string)) throw openAlertExists();
    const { iid } = prepared(this.db, NEXT_IID).get(input.projectId) as { iid: number };
    const status = statusCode(input.status);
    const id = Number(
      prepared(this.db, INSERT_ALERT).run(
        input.projectId,
        iid,
        input.integrationId,
        a.title,
        a.description ?? "",
        severityCode(a.severity),
        status,
        a.service ?? "",
        a.monitoringTool ?? "",
        a.hosts.length === 0 ? "[]" : JSON.stringify(a.hosts),
        a.fingerprint ?? null,
        startedAt,
        endedAt,
        a.environmentName ?? "",
        JSON.stringify(a.payload),
        at,
        at,
        input.notes?.length ? notesJson(input.notes) : null,
      ).lastInsertRowid,
    );
    let recorded: boolean;
    try {
      prepared(this.db, COUNT_NEW_ALERT).run(input.projectId, status);
      recorded = this.ops.change(input.opKey, id, 1, at);
    } catch (err) {
      if (joined) rollBackEnclosing(this.db);
      throw err;
    }
    if (!recorded) {
      if (joined) prepared(this.db, "DELETE FROM alerts WHERE id = ?").run(id);
      throw opApplied();
    }
    try {
      this.fingerprints.added(id, open ? { projectId: input.projectId, fingerprint: a.fingerprint as string } : undefined);
    } catch (err) {
      if (joined) rollBackEnclosing(this.db);
      throw err;
    }
    return {
      id,
      projectId: input.projectId,
      iid,
      integrationId: input.integrationId,
      title: a.title,
      description: a.description ?? "",
      severity: severityOf(severityCode(a.severity)),
      status: input.status,
      service: a.service ?? "",
      monitoringTool: a.monitoringTool ?? "",
      hosts: [...a.hosts],
      events: 1,
      fingerprint: a.fingerprint,
      startedAt: new Date(startedAt),
      endedAt: endedAt === null ? undefined : new Date(endedAt),
      environmentName: a.environmentName ?? "",
      incidentIid: 0,
      payload: a.payload,
      createdAt: new Date(at),
      updatedAt: new Date(at),
    };
  }

  async create(input: NewAlert): Promise<Alert> {
    if (this.db.inTransaction) return this.insertNow(input, true);
    // A transaction of its own: whatever write lock a batch held is gone.
    this.fingerprints.released();
    return this.insertTx(input);
  }

  async findOpen(projectId: number, fingerprint: string) {
    const r = this.fingerprints.find<AlertRow>(projectId, fingerprint);
    return r ? toAlert(r) : undefined;
  }

  async findByOp(projectId: number, opKey: string) {
    this.ops.flush();
    const r = prepared(
      this.db,
      "SELECT a.*, o.created AS op_created FROM alert_ops o JOIN alerts a ON a.id = o.alert_id WHERE o.op = ? AND a.project_id = ?",
    ).get(opKey, projectId) as (AlertRow & { op_created: number }) | undefined;
    return r ? { alert: toAlert(r), created: r.op_created === 1 } : undefined;
  }

  /** Runs `update` (of the alert `alertId`) with the op recorded in the same transaction; undefined if nothing changed. */
  private applyOp(alertId: number, opKey: string, at: Date, update: Statement, args: unknown[]): Alert | undefined {
    const row = this.db.inTransaction
      ? this.applyOpNow(alertId, opKey, at.getTime(), update, args)
      : this.applyOpTx(alertId, opKey, at.getTime(), update, args);
    return row ? toAlert(row) : undefined;
  }

  async registerEvent(alertId: number, opKey: string, at: Date) {
    return this.applyOp(alertId, opKey, at, this.eventSql, [at.getTime(), alertId]);
  }

  async resolve(alertId: number, endedAt: Date, opKey: string, at: Date) {
    return this.applyOp(alertId, opKey, at, this.resolveSql, [endedAt.getTime(), at.getTime(), alertId]);
  }

  async setStatus(alertId: number, status: AlertStatus, endedAt: Date | undefined, at: Date): Promise<Alert> {
    this.fingerprints.changed();
    try {
      // The first acknowledgement stays (the overview's time to acknowledge).
      prepared(
        this.db,
        `UPDATE alerts SET status = ?, ended_at = ?, updated_at = ?,
          acknowledged_at = CASE WHEN ? = ${ACKNOWLEDGED} THEN COALESCE(acknowledged_at, ?) ELSE acknowledged_at END WHERE id = ?`,
      ).run(statusCode(status), endedAt ? endedAt.getTime() : null, at.getTime(), statusCode(status), at.getTime(), alertId);
    } catch (err) {
      // A reopen while another alert of the fingerprint is open (the triggers of schema version 6).
      if (isUniqueViolation(err) || (err instanceof Error && err.message === REOPEN_REFUSED)) throw openAlertExists();
      throw err;
    }
    return this.row("SELECT * FROM alerts WHERE id = ?", alertId) as Alert;
  }

  async linkIncident(alertId: number, incidentIid: number, at: Date) {
    prepared(this.db, "UPDATE alerts SET incident_iid = ?, updated_at = ? WHERE id = ?").run(incidentIid, at.getTime(), alertId);
  }

  async get(projectId: number, iid: number) {
    return this.row("SELECT * FROM alerts WHERE project_id = ? AND iid = ?", projectId, iid);
  }

  async getById(alertId: number) {
    return this.row("SELECT * FROM alerts WHERE id = ?", alertId);
  }

  async list(projectId: number, q: AlertQuery) {
    return listAlerts(this.db, projectId, q);
  }

  async addActivity(alertId: number, key: string, note: string, at: Date) {
    prepared(this.db, "INSERT OR IGNORE INTO alert_activity (alert_id, key, note, at) VALUES (?, ?, ?, ?)").run(
      alertId,
      key,
      note,
      at.getTime(),
    );
  }

  /** See `readActivity`. */
  async activity(alertId: number): Promise<ActivityEntry[]> {
    return readActivity(this.db, alertId);
  }
}
