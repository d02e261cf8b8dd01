import { Time } from "../ui/Time";
import type { Escalation } from "./types";

/**
 * The alert's escalation (section 11): the policy, the next page due and the pages sent for the
 * latest trigger, one row per (rule, round). Rules and rounds count from 1 here, as people read them.
 */
export function EscalationPanel({ escalation }: { escalation: Escalation }) {
  return (
    <section aria-labelledby="escalation-title">
      <h2 id="escalation-title">Escalation</h2>
      <dl className="facts">
        <dt>Escalation policy</dt>
        <dd>{escalation.policy}</dd>
        <dt>Next page</dt>
        <dd>{escalation.next_page_at ? <Time iso={escalation.next_page_at} /> : "None pending"}</dd>
      </dl>
      {escalation.pages.length === 0 ? (
        <p className="empty">No pages sent yet.</p>
      ) : (
        <table className="alerts">
          <caption>Pages sent</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Round</th>
              <th scope="col">Paged</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {escalation.pages.map((p) => (
              <tr key={`${p.rule}:${p.round}`}>
                <td>Rule {p.rule + 1}</td>
                <td>{p.round + 1}</td>
                <td>{p.users.length ? p.users.map((u) => `@${u}`).join(", ") : "Nobody on call"}</td>
                <td>
                  <Time iso={p.at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
