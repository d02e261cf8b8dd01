import { formatDuration } from "./format";
import type { ResponseTimes } from "./types";

/** Mean time to acknowledge and to resolve, over 7 and 30 days. */
export function ResponseTimesList({ times }: { times: ResponseTimes[] }) {
  return (
    <table className="response-times">
      <caption className="visually-hidden">Response times over the alerts started in the last 7 and 30 days</caption>
      <thead>
        <tr>
          <th scope="col">Alerts started in</th>
          <th scope="col" className="num">
            Mean time to acknowledge
          </th>
          <th scope="col" className="num">
            Mean time to resolve
          </th>
        </tr>
      </thead>
      <tbody>
        {times.map((t) => (
          <tr key={t.days}>
            <th scope="row">Last {t.days} days</th>
            <td className="num">
              <strong>{formatDuration(t.mean_time_to_acknowledge_seconds)}</strong>{" "}
              <span className="muted">({t.acknowledged} acknowledged)</span>
            </td>
            <td className="num">
              <strong>{formatDuration(t.mean_time_to_resolve_seconds)}</strong>{" "}
              <span className="muted">({t.resolved} resolved)</span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
