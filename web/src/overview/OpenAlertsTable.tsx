import { Link } from "react-router";
import { SEVERITIES } from "../alerts/types";
import { projectPath } from "../projects/address";
import { capitalize } from "../ui/format";
import type { OpenAlerts } from "./types";

/** Open alerts by severity; every count links to the alerts list filtered to it. */
export function OpenAlertsTable({ fullPath, open }: { fullPath: string; open: OpenAlerts }) {
  const list = (q: Record<string, string>) => `${projectPath(fullPath, "alert_management")}?${new URLSearchParams(q)}`;
  return (
    <table className="open-alerts">
      <caption className="visually-hidden">Open alerts by severity</caption>
      <thead>
        <tr>
          <th scope="col">Severity</th>
          <th scope="col" className="num">
            Triggered
          </th>
          <th scope="col" className="num">
            Acknowledged
          </th>
          <th scope="col" className="num">
            Open
          </th>
        </tr>
      </thead>
      <tbody>
        {SEVERITIES.map((s) => {
          const triggered = open.triggered[s];
          const acknowledged = open.acknowledged[s];
          const cell = (n: number, status: string, label: string) =>
            n > 0 ? (
              <Link to={list({ status, severity: s })} aria-label={`${n} ${label} ${s} alerts`}>
                {n}
              </Link>
            ) : (
              <span className="muted">0</span>
            );
          return (
            <tr key={s} className={s === "critical" && triggered > 0 ? "burning" : undefined}>
              <th scope="row">
                <span className={`swatch sev-${s}`} />
                {capitalize(s)}
              </th>
              <td className="num">{cell(triggered, "triggered", "triggered")}</td>
              <td className="num">{cell(acknowledged, "acknowledged", "acknowledged")}</td>
              <td className="num">
                {triggered + acknowledged > 0 ? (
                  <Link to={list({ severity: s })} aria-label={`${triggered + acknowledged} open ${s} alerts`}>
                    {triggered + acknowledged}
                  </Link>
                ) : (
                  <span className="muted">0</span>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
