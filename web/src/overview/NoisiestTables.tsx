import { Link } from "react-router";
import { projectPath } from "../projects/address";
import type { Overview } from "./types";

/** The ten noisiest fingerprints and services of the last 7 days, by events. */
export function NoisiestTables({ fullPath, overview }: { fullPath: string; overview: Overview }) {
  const list = (q: Record<string, string>) =>
    `${projectPath(fullPath, "alert_management")}?${new URLSearchParams({ status: "all", ...q })}`;
  return (
    <div className="overview-grid">
      <section aria-labelledby="noisiest-alerts">
        <h3 id="noisiest-alerts">Noisiest alerts</h3>
        {overview.noisiest_fingerprints.length === 0 ? (
          <p className="empty">No grouped alerts in the last 7 days.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Alert (latest title)</th>
                <th scope="col">Service</th>
                <th scope="col" className="num">
                  Events
                </th>
                <th scope="col" className="num">
                  Alerts
                </th>
              </tr>
            </thead>
            <tbody>
              {overview.noisiest_fingerprints.map((f) => (
                <tr key={f.fingerprint}>
                  <td>
                    <Link to={list({ search: f.title })}>{f.title}</Link>
                  </td>
                  <td>{f.service ?? <span className="muted">—</span>}</td>
                  <td className="num">{f.events}</td>
                  <td className="num">{f.alerts}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="noisiest-services">
        <h3 id="noisiest-services">Noisiest services</h3>
        {overview.noisiest_services.length === 0 ? (
          <p className="empty">No alerts with a service in the last 7 days.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Service</th>
                <th scope="col" className="num">
                  Events
                </th>
                <th scope="col" className="num">
                  Alerts
                </th>
              </tr>
            </thead>
            <tbody>
              {overview.noisiest_services.map((s) => (
                <tr key={s.service}>
                  <td>
                    <Link to={list({ service: s.service })}>{s.service}</Link>
                  </td>
                  <td className="num">{s.events}</td>
                  <td className="num">{s.alerts}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
