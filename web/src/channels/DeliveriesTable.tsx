import { ErrorMessage } from "../ui/ErrorMessage";
import { Time } from "../ui/Time";
import { type Target, useResend } from "./api";
import type { Delivery } from "./types";

interface Props {
  fullPath: string;
  target: Target;
  label: string;
  /** The deliveries the page read, and its re-read. */
  deliveries: Delivery[];
  onRefresh: () => void;
}

/** A destination's recent deliveries (7 days), with Resend. */
export function DeliveriesTable({ fullPath, target, label, deliveries, onRefresh }: Props) {
  const resend = useResend(fullPath, target);
  return (
    <div className="stack">
      <div className="actions">
        <button type="button" onClick={onRefresh} aria-label={`Refresh recent deliveries of ${label}`}>
          Refresh
        </button>
      </div>
      {deliveries.length === 0 ? (
        <p className="empty">No deliveries in the last 7 days.</p>
      ) : (
        <table>
          <caption>Recent deliveries of {label}</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Response</th>
              <th scope="col">Attempts</th>
              <th scope="col">When</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.id}>
                <td>{d.event_type}</td>
                <td>
                  <span className={`badge ${d.status === "delivered" ? "enabled" : "disabled"}`}>{d.status}</span>
                  {d.error && <span className="hint"> {d.error}</span>}
                </td>
                <td>{d.response_status ?? "—"}</td>
                <td>{d.attempts}</td>
                <td>
                  <Time iso={d.created_at} />
                </td>
                <td className="actions">
                  <button
                    type="button"
                    onClick={() => resend.mutate(d.id)}
                    disabled={resend.isPending}
                    aria-label={`Resend delivery ${d.id}`}
                  >
                    Resend
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {resend.isError && <ErrorMessage error={resend.error} />}
      {resend.isSuccess && (
        <p role="status" className="message success">
          Delivery queued again.
        </p>
      )}
    </div>
  );
}
