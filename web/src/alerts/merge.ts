import { type Alert, SEVERITIES, type SortDir, type SortField, STATUSES } from "./types";

/**
 * The API's order (alert-service): by the field, then by creation (iid) in the same direction;
 * severity "desc" means the most severe first.
 */
export function compareAlerts(orderBy: SortField, sort: SortDir) {
  const key = (a: Alert): number => {
    switch (orderBy) {
      case "severity":
        return -SEVERITIES.indexOf(a.severity);
      case "status":
        return STATUSES.indexOf(a.status);
      case "events":
        return a.events;
      default:
        return a.started_at ? Date.parse(a.started_at) : 0;
    }
  };
  const dir = sort === "asc" ? 1 : -1;
  return (x: Alert, y: Alert) => dir * (key(x) - key(y) || x.iid - y.iid);
}

/** One page of the union of lists that are each sorted the same way. */
export function mergePage(lists: Alert[][], orderBy: SortField, sort: SortDir, page: number, perPage: number): Alert[] {
  const all = lists.flat().sort(compareAlerts(orderBy, sort));
  return all.slice((page - 1) * perPage, page * perPage);
}
