import { AppError } from "@tocsin/core";
import { ALERT_STATUSES, type Alert, type AlertStatus, SEVERITIES } from "./model.js";
import type { AlertOrderField, AlertQuery, AlertStore } from "./ports.js";

/**
 * The `status` of a list: empty (every status), one status, or several separated by commas
 * (`triggered,acknowledged`, the console's Open tab). An unknown status → `status is invalid`.
 */
export function parseStatuses(value: string | undefined): AlertStatus[] {
  const parts = (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const s of parts) {
    if (!(ALERT_STATUSES as readonly string[]).includes(s)) {
      throw new AppError("INVALID_ARGUMENT", "PARAM_VALUE_INVALID", "status does not have a valid value");
    }
  }
  return [...new Set(parts as AlertStatus[])];
}

function sortKey(a: Alert, orderBy: AlertOrderField): number {
  switch (orderBy) {
    case "severity":
      return -SEVERITIES.indexOf(a.severity);
    case "status":
      return ALERT_STATUSES.indexOf(a.status);
    case "events":
      return a.events;
    case "iid":
      return a.iid;
    case "created_at":
      return a.createdAt.getTime();
    case "updated_at":
      return a.updatedAt.getTime();
    case "started_at":
      return a.startedAt.getTime();
    case "ended_at":
      return a.endedAt?.getTime() ?? 0;
  }
}

/**
 * One page of alerts of several statuses, in the store's order (the field, then the alert id in
 * the same direction). The store filters one status at a time, so each status's list is read
 * from its head to the end of the page and the lists are merged; the total is their sum.
 */
export async function listOfStatuses(
  store: Pick<AlertStore, "list">,
  projectId: number,
  statuses: AlertStatus[],
  q: Omit<AlertQuery, "status">,
  deadlineMs?: number,
): Promise<{ alerts: Alert[]; total: number }> {
  const head = { ...q, offset: 0, limit: q.offset + q.limit };
  const lists = await Promise.all(statuses.map((status) => store.list(projectId, { ...head, status }, deadlineMs)));
  const dir = q.sort === "asc" ? 1 : -1;
  const merged = lists
    .flatMap((l) => l.alerts)
    .sort((x, y) => dir * (sortKey(x, q.orderBy) - sortKey(y, q.orderBy) || x.id - y.id));
  return { alerts: merged.slice(q.offset, q.offset + q.limit), total: lists.reduce((n, l) => n + l.total, 0) };
}
