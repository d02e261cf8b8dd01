import { capitalize } from "../ui/format";
import type { AlertStatus, Severity } from "./types";

export function SeverityBadge({ severity }: { severity: Severity }) {
  return <span className={`badge severity-${severity}`}>{capitalize(severity)}</span>;
}

export function StatusBadge({ status }: { status: AlertStatus }) {
  return <span className={`badge status-${status}`}>{capitalize(status)}</span>;
}
