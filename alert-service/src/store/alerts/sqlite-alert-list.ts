import { prepared } from "@tocsin/store";
import type { Database } from "better-sqlite3";
import type { Alert } from "../../domain/alerts/model.js";
import type { AlertQuery } from "../../domain/alerts/ports.js";
import { severityCode, statusCode } from "./codes.js";
import { type AlertRow, toAlert } from "./sqlite-alert-rows.js";

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

/** A page of the project's alerts with the total of those matching `q` (`AlertStore.list`). */
export function listAlerts(db: Database, projectId: number, q: AlertQuery): { alerts: Alert[]; total: number } {
  const where = ["project_id = ?"];
  const args: unknown[] = [projectId];
  if (q.status) {
    where.push("status = ?");
    args.push(statusCode(q.status));
  }
  if (q.severity) {
    where.push("severity = ?");
    args.push(severityCode(q.severity));
  }
  for (const [column, value] of [
    ["monitoring_tool", q.monitoringTool],
    ["service", q.service],
  ] as const) {
    if (value === undefined) continue;
    where.push(`${column} = ? COLLATE NOCASE`);
    args.push(value);
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
  // Without a filter but the status, the total is kept by triggers (`alert_counts`).
  const counted = !q.search && !q.severity && q.monitoringTool === undefined && q.service === undefined;
  const total = counted
    ? `SELECT COALESCE(SUM(n), 0) AS n FROM alert_counts WHERE ${clause}`
    : `SELECT COUNT(*) AS n FROM alerts${hint} WHERE ${clause}`;
  const { n } = prepared(db, total).get(...args) as { n: number };
  const rows = prepared(db, `SELECT * FROM alerts WHERE ${clause} ORDER BY ${orderSql(q)} LIMIT ? OFFSET ?`).all(
    ...args,
    q.limit,
    q.offset,
  ) as AlertRow[];
  return { alerts: rows.map(toAlert), total: n };
}
