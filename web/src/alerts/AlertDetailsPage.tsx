import { Link } from "react-router";
import { ACCESS } from "../api/types";
import { projectPath } from "../projects/address";
import { useCurrentProject } from "../projects/context";
import { matchersForAlert, matcherText } from "../silences/matchers";
import { CopyButton } from "../ui/CopyButton";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Field } from "../ui/Field";
import { capitalize } from "../ui/format";
import { NotFound } from "../ui/NotFound";
import { QueryState } from "../ui/QueryState";
import { Time } from "../ui/Time";
import { useDocumentTitle } from "../ui/title";
import { useAlert, useUpdateAlertStatus } from "./api";
import { SeverityBadge, StatusBadge } from "./badges";
import { EscalationPanel } from "./EscalationPanel";
import { type AlertDetails, type AlertStatus, STATUSES } from "./types";

/** Activity notes use **bold** for names, as GitLab's system notes do. */
function Note({ text }: { text: string }) {
  const parts = text.split(/\*\*(.+?)\*\*/g);
  // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one note never move
  return <>{parts.map((part, i) => (i % 2 ? <strong key={i}>{part}</strong> : part))}</>;
}

function StatusChange({ fullPath, alert }: { fullPath: string; alert: AlertDetails }) {
  const update = useUpdateAlertStatus(fullPath, alert.iid);
  return (
    <div className="status-change">
      <Field label="Status" inline>
        {(control) => (
          <select
            {...control}
            value={alert.status}
            disabled={update.isPending}
            onChange={(e) => update.mutate(e.target.value as AlertStatus)}
          >
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {capitalize(s)}
              </option>
            ))}
          </select>
        )}
      </Field>
      {update.isError && <ErrorMessage error={update.error} />}
      {update.isSuccess && (
        <p role="status" className="message success">
          Status changed to {capitalize(update.data.status)}.
        </p>
      )}
    </div>
  );
}

export default function AlertDetailsPage({ iid }: { iid: number }) {
  const { fullPath, access } = useCurrentProject();
  const alert = useAlert(fullPath, iid);
  useDocumentTitle(alert.data ? `${alert.data.title} · Alert #${iid}` : `Alert #${iid}`);
  return (
    <QueryState query={alert} loading="Loading the alert" notFound={<NotFound />}>
      {(a) => <AlertView fullPath={fullPath} access={access} alert={a} />}
    </QueryState>
  );
}

/** Every field of the alert, its payload, activity and escalation; status change and silences. */
function AlertView({ fullPath, access, alert: a }: { fullPath: string; access: number; alert: AlertDetails }) {
  const payload = JSON.stringify(a.payload, null, 2);
  return (
    <>
      <p className="breadcrumb">
        <Link to={projectPath(fullPath, "alert_management")}>Alerts</Link> / #{a.iid}
      </p>
      <h1>{a.title}</h1>
      <p className="summary">
        <StatusBadge status={a.status} /> <SeverityBadge severity={a.severity} /> Alert #{a.iid} started{" "}
        <Time iso={a.started_at} />
      </p>
      <StatusChange fullPath={fullPath} alert={a} />
      {access >= ACCESS.maintainer && (
        <p>
          <Link
            to={`${projectPath(fullPath, "alert_management", "silences")}?${new URLSearchParams(
              matchersForAlert(a).map((m) => ["matcher", matcherText(m)]),
            )}`}
          >
            Silence alerts like this
          </Link>
        </p>
      )}
      <section aria-labelledby="details-title">
        <h2 id="details-title">Alert details</h2>
        <dl className="facts">
          <dt>Severity</dt>
          <dd>{capitalize(a.severity)}</dd>
          <dt>Status</dt>
          <dd>{capitalize(a.status)}</dd>
          <dt>Start time</dt>
          <dd>
            <Time iso={a.started_at} />
          </dd>
          <dt>End time</dt>
          <dd>
            <Time iso={a.ended_at} />
          </dd>
          <dt>Events</dt>
          <dd>{a.events}</dd>
          <dt>Description</dt>
          <dd className="pre-line">{a.description ?? "—"}</dd>
          <dt>Service</dt>
          <dd>{a.service ?? "—"}</dd>
          <dt>Monitoring tool</dt>
          <dd>{a.monitoring_tool ?? "—"}</dd>
          <dt>Hosts</dt>
          <dd>{a.hosts.length ? a.hosts.join(", ") : "—"}</dd>
          <dt>Environment</dt>
          <dd>{a.environment ?? "—"}</dd>
          <dt>Fingerprint</dt>
          <dd className="mono">{a.fingerprint ?? "—"}</dd>
          {a.silenced_by.length > 0 && (
            <>
              <dt>Silenced by</dt>
              <dd>
                <Link to={projectPath(fullPath, "alert_management", "silences")}>
                  {a.silenced_by.length === 1 ? "1 silence" : `${a.silenced_by.length} silences`}
                </Link>{" "}
                <span className="mono">{a.silenced_by.join(", ")}</span>
              </dd>
            </>
          )}
          <dt>Incident</dt>
          <dd>
            {a.incident ? (
              <Link to={projectPath(fullPath, "incidents", a.incident.iid)}>Incident #{a.incident.iid}</Link>
            ) : (
              "None"
            )}
          </dd>
          <dt>Created</dt>
          <dd>
            <Time iso={a.created_at} />
          </dd>
          <dt>Updated</dt>
          <dd>
            <Time iso={a.updated_at} />
          </dd>
        </dl>
      </section>
      {a.escalation && <EscalationPanel escalation={a.escalation} />}
      <section aria-labelledby="payload-title">
        <h2 id="payload-title">Payload</h2>
        <CopyButton text={payload} label="Copy payload" />
        <pre className="code">{payload}</pre>
      </section>
      <section aria-labelledby="activity-title">
        <h2 id="activity-title">Activity</h2>
        {a.activity.length === 0 ? (
          <p className="empty">No activity yet.</p>
        ) : (
          <ol className="activity">
            {a.activity.map((e) => (
              <li key={`${e.created_at}-${e.note}`}>
                <Note text={e.note} /> <Time iso={e.created_at} />
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}
