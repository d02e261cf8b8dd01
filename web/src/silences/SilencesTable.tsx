import { Time } from "../ui/Time";
import { matcherText } from "./matchers";
import type { Silence } from "./types";

/** The silences of one state; `onExpire` (Maintainer+) adds an *Expire* button to live ones. */
export function SilencesTable({ silences, onExpire }: { silences: Silence[]; onExpire?: (s: Silence) => void }) {
  return (
    <table className="silences">
      <caption className="visually-hidden">Silences</caption>
      <thead>
        <tr>
          <th scope="col">Matchers</th>
          <th scope="col">Starts</th>
          <th scope="col">Ends</th>
          <th scope="col">Created by</th>
          <th scope="col">Comment</th>
          {onExpire && <th scope="col">Actions</th>}
        </tr>
      </thead>
      <tbody>
        {silences.map((s) => (
          <tr key={s.id}>
            <td>
              <ul className="matchers" aria-label={`Matchers of silence ${s.id}`}>
                {s.matchers.map((m) => (
                  <li key={matcherText(m)} className="mono">
                    {matcherText(m)}
                  </li>
                ))}
              </ul>
            </td>
            <td>
              <Time iso={s.starts_at} />
            </td>
            <td>
              <Time iso={s.ends_at} />
            </td>
            <td>{s.created_by}</td>
            <td className="pre-line">{s.comment || "—"}</td>
            {onExpire && (
              <td>
                {s.state !== "expired" && (
                  <button type="button" className="danger" onClick={() => onExpire(s)}>
                    Expire
                  </button>
                )}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
