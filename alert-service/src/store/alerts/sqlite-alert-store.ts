import { prepared } from "@tocsin/store";
import type { Database } from "better-sqlite3";
import type { ActivityEntry, Alert, AlertStatus } from "../../domain/alerts/model.js";
import type { AlertQuery, AlertStore, NewAlert } from "../../domain/alerts/ports.js";
import { opApplied, openAlertExists, RESOLVED, severityCode, severityOf, statusCode, statusOf } from "./codes.js";
import { isUniqueViolation, nextCounter } from "./sqlite-schema.js";

interface AlertRow {
  id: number;
  project_id: number;
  iid: number;
  integration_id: number;
  title: string;
  description: string;
  severity: number;
  status: number;
  service: string;
  monitoring_tool: string;
  hosts: string;
  events: number;
  fingerprint: string | null;
  started_at: number;
  ended_at: number | null;
  environment_name: string;
  incident_iid: number;
  payload: string;
  created_at: number;
  updated_at: number;
}

function toAlert(r: AlertRow): Alert {
  return {
    id: r.id,
    projectId: r.project_id,
    iid: r.iid,
    integrationId: r.integration_id,
    title: r.title,
    description: r.description,
    severity: severityOf(r.severity),
    status: statusOf(r.status),
    service: r.service,
    monitoringTool: r.monitoring_tool,
    hosts: JSON.parse(r.hosts) as string[],
    events: r.events,
    fingerprint: r.fingerprint ?? undefined,
    startedAt: new Date(r.started_at),
    endedAt: r.ended_at === null ? undefined : new Date(r.ended_at),
    environmentName: r.environment_name,
    incidentIid: r.incident_iid,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/** Severity ascending means less critical first, so its column order is inverted. */
function orderSql(q: AlertQuery): string {
  const dir = q.sort === "asc" ? "ASC" : "DESC";
  if (q.orderBy === "severity") {
    const inv = dir === "ASC" ? "DESC" : "ASC";
    return `severity ${inv}, id ${dir}`;
  }
  const column = q.orderBy === "ended_at" ? "COALESCE(ended_at, 0)" : q.orderBy;
  return `${column} ${dir}, id ${dir}`;
}

export class SqliteAlertStore implements AlertStore {
  /** Transactions built once (`db.transaction` wraps a function; building it per call costs). */
  private readonly insertTx: (input: NewAlert) => Alert;
  private readonly applyOpTx: (alertId: number, opKey: string, at: number, sql: string, args: unknown[]) => AlertRow | undefined;

  constructor(private readonly db: Database) {
    this.insertTx = db.transaction((input: NewAlert) => this.insertNow(input));
    this.applyOpTx = db.transaction((alertId: number, opKey: string, at: number, sql: string, args: unknown[]) => {
      if (prepared(this.db, "SELECT 1 FROM alert_ops WHERE op = ?").get(opKey)) return undefined;
      const row = prepared(this.db, `${sql} RETURNING *`).get(...args) as AlertRow | undefined;
      if (!row) return undefined;
      prepared(this.db, "INSERT INTO alert_ops (op, alert_id, at) VALUES (?, ?, ?)").run(opKey, alertId, at);
      return row;
    });
  }

  private row(sql: string, ...args: unknown[]): Alert | undefined {
    const r = prepared(this.db, sql).get(...args) as AlertRow | undefined;
    return r ? toAlert(r) : undefined;
  }

  /** The insert and its op record; run inside `insertTx`. The alert is built from what was written (no read back). */
  private insertNow(input: NewAlert): Alert {
    const a = input.alert;
    const at = input.at.getTime();
    const iid = nextCounter(this.db, `alert_iid:${input.projectId}`);
    const endedAt = input.status === "resolved" ? Date.parse(a.endedAt ?? input.at.toISOString()) : null;
    const startedAt = Date.parse(a.startedAt);
    const { id } = prepared(
      this.db,
      `INSERT INTO alerts (project_id, iid, integration_id, title, description, severity, status, service,
         monitoring_tool, hosts, events, fingerprint, started_at, ended_at, environment_name, payload, create_op,
         created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,1,?,?,?,?,?,?,?,?) RETURNING id`,
    ).get(
      input.projectId,
      iid,
      input.integrationId,
      a.title,
      a.description ?? "",
      severityCode(a.severity),
      statusCode(input.status),
      a.service ?? "",
      a.monitoringTool ?? "",
      JSON.stringify(a.hosts),
      a.fingerprint ?? null,
      startedAt,
      endedAt,
      a.environmentName ?? "",
      JSON.stringify(a.payload),
      input.opKey,
      at,
      at,
    ) as { id: number };
    prepared(this.db, "INSERT INTO alert_ops (op, alert_id, at) VALUES (?, ?, ?)").run(input.opKey, id, at);
    for (const n of input.notes ?? []) {
      prepared(this.db, "INSERT OR IGNORE INTO alert_activity (alert_id, key, note, at) VALUES (?, ?, ?, ?)").run(
        id,
        n.key,
        n.note,
        at,
      );
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
    try {
      return this.insertTx(input);
    } catch (err) {
      if (isUniqueViolation(err, "alerts.create_op") || isUniqueViolation(err, "alert_ops.op")) throw opApplied();
      if (isUniqueViolation(err, "alerts.project_id, alerts.fingerprint")) throw openAlertExists();
      throw err;
    }
  }

  async findOpen(projectId: number, fingerprint: string) {
    // The resolved status is a literal: only then can SQLite prove the partial index
    // `alerts_one_open_per_fingerprint` applies when it prepares the statement (with a bound
    // parameter it re-plans on every call, ≈ 10 µs, measured with bench/sqlite-processing.mjs).
    return this.row(
      `SELECT * FROM alerts WHERE project_id = ? AND fingerprint = ? AND status <> ${RESOLVED}`,
      projectId,
      fingerprint,
    );
  }

  async findByOp(projectId: number, opKey: string) {
    const alert = this.row(
      "SELECT a.* FROM alert_ops o JOIN alerts a ON a.id = o.alert_id WHERE o.op = ? AND a.project_id = ?",
      opKey,
      projectId,
    );
    if (!alert) return undefined;
    const created = prepared(this.db, "SELECT 1 FROM alerts WHERE id = ? AND create_op = ?").get(alert.id, opKey) !== undefined;
    return { alert, created };
  }

  /** Runs the UPDATE `sql` with the op recorded in the same transaction; undefined if nothing changed. */
  private applyOp(alertId: number, opKey: string, at: Date, sql: string, args: unknown[]): Alert | undefined {
    const row = this.applyOpTx(alertId, opKey, at.getTime(), sql, args);
    return row ? toAlert(row) : undefined;
  }

  async registerEvent(alertId: number, opKey: string, at: Date) {
    return this.applyOp(
      alertId,
      opKey,
      at,
      "UPDATE alerts SET events = events + 1, updated_at = ? WHERE id = ? AND status <> ?",
      [at.getTime(), alertId, RESOLVED],
    );
  }

  async resolve(alertId: number, endedAt: Date, opKey: string, at: Date) {
    return this.applyOp(
      alertId,
      opKey,
      at,
      "UPDATE alerts SET status = ?, ended_at = ?, updated_at = ? WHERE id = ? AND status <> ?",
      [RESOLVED, endedAt.getTime(), at.getTime(), alertId, RESOLVED],
    );
  }

  async setStatus(alertId: number, status: AlertStatus, endedAt: Date | undefined, at: Date): Promise<Alert> {
    try {
      prepared(this.db, "UPDATE alerts SET status = ?, ended_at = ?, updated_at = ? WHERE id = ?").run(
        statusCode(status),
        endedAt ? endedAt.getTime() : null,
        at.getTime(),
        alertId,
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw openAlertExists();
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
    const where = ["project_id = ?"];
    const args: unknown[] = [projectId];
    if (q.status) {
      where.push("status = ?");
      args.push(statusCode(q.status));
    }
    if (q.search) {
      const like = `%${q.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push(
        "(" +
          ["title", "description", "service", "monitoring_tool", "hosts"].map((c) => `${c} LIKE ? ESCAPE '\\'`).join(" OR ") +
          ")",
      );
      args.push(like, like, like, like, like);
    }
    const clause = where.join(" AND ");
    // A search reads every row of the project: walk them in insertion (rowid) order, which the
    // planner, without statistics, does not know is much cheaper than another index's order.
    const hint = q.search ? ` INDEXED BY ${q.status ? "alerts_project_status_created" : "alerts_project_created"}` : "";
    const { n } = prepared(this.db, `SELECT COUNT(*) AS n FROM alerts${hint} WHERE ${clause}`).get(...args) as { n: number };
    const rows = prepared(this.db, `SELECT * FROM alerts WHERE ${clause} ORDER BY ${orderSql(q)} LIMIT ? OFFSET ?`).all(
      ...args,
      q.limit,
      q.offset,
    ) as AlertRow[];
    return { alerts: rows.map(toAlert), total: n };
  }

  async addActivity(alertId: number, key: string, note: string, at: Date) {
    prepared(this.db, "INSERT OR IGNORE INTO alert_activity (alert_id, key, note, at) VALUES (?, ?, ?, ?)").run(
      alertId,
      key,
      note,
      at.getTime(),
    );
  }

  async activity(alertId: number): Promise<ActivityEntry[]> {
    const rows = prepared(this.db, "SELECT note, at FROM alert_activity WHERE alert_id = ? ORDER BY seq").all(alertId) as Array<{
      note: string;
      at: number;
    }>;
    return rows.map((r) => ({ note: r.note, createdAt: new Date(r.at) }));
  }
}
