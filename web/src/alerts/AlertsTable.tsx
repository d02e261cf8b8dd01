import { Link } from "react-router";
import { projectPath } from "../projects/address";
import { Time } from "../ui/Time";
import { SeverityBadge, StatusBadge } from "./badges";
import type { Alert, SortDir, SortField } from "./types";

interface Props {
  fullPath: string;
  alerts: Alert[];
  orderBy: SortField;
  sort: SortDir;
  onSort: (field: SortField) => void;
}

const COLUMNS: { field?: SortField; label: string }[] = [
  { field: "severity", label: "Severity" },
  { field: "started_at", label: "Start time" },
  { label: "Alert" },
  { field: "events", label: "Events" },
  { field: "status", label: "Status" },
];

export function AlertsTable({ fullPath, alerts, orderBy, sort, onSort }: Props) {
  return (
    <table className="alerts">
      <caption className="visually-hidden">Alerts</caption>
      <thead>
        <tr>
          {COLUMNS.map((c) => {
            const active = c.field === orderBy;
            return (
              <th
                key={c.label}
                scope="col"
                aria-sort={active ? (sort === "asc" ? "ascending" : "descending") : undefined}
                className={c.field === "events" ? "num" : undefined}
              >
                {c.field ? (
                  <button type="button" className="sort" onClick={() => c.field && onSort(c.field)}>
                    {c.label}
                    <span aria-hidden="true">{active ? (sort === "asc" ? " ▲" : " ▼") : ""}</span>
                  </button>
                ) : (
                  c.label
                )}
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {alerts.map((a) => (
          <tr key={a.iid}>
            <td>
              <SeverityBadge severity={a.severity} />
            </td>
            <td>
              <Time iso={a.started_at} />
            </td>
            <td>
              <Link to={projectPath(fullPath, "alert_management", a.iid, "details")}>{a.title}</Link>
              <span className="muted"> #{a.iid}</span>
            </td>
            <td className="num">{a.events}</td>
            <td>
              <StatusBadge status={a.status} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
