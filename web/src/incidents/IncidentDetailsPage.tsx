import { Link } from "react-router";
import { projectPath } from "../projects/address";
import { useCurrentProject } from "../projects/context";
import { ErrorMessage, isStatus } from "../ui/ErrorMessage";
import { capitalize } from "../ui/format";
import { Loading } from "../ui/Loading";
import { NotFound } from "../ui/NotFound";
import { Time } from "../ui/Time";
import { useDocumentTitle } from "../ui/title";
import { useIncident } from "./api";

export default function IncidentDetailsPage({ iid }: { iid: number }) {
  const { fullPath } = useCurrentProject();
  const incident = useIncident(fullPath, iid);
  useDocumentTitle(`Incident #${iid}`);
  if (incident.isPending) return <Loading label="Loading the incident" />;
  if (incident.isError) return isStatus(incident.error, 404) ? <NotFound /> : <ErrorMessage error={incident.error} />;
  const i = incident.data;
  return (
    <>
      <p className="breadcrumb">
        <Link to={projectPath(fullPath, "incidents")}>Incidents</Link> / #{i.iid}
      </p>
      <h1>{i.title}</h1>
      <dl className="facts">
        <dt>Status</dt>
        <dd>{capitalize(i.status)}</dd>
        <dt>Severity</dt>
        <dd>{capitalize(i.severity)}</dd>
        <dt>Opened</dt>
        <dd>
          <Time iso={i.created_at} />
        </dd>
        <dt>Closed</dt>
        <dd>
          <Time iso={i.closed_at} />
        </dd>
        <dt>Alert</dt>
        <dd>
          {i.alert_iid ? (
            <Link to={projectPath(fullPath, "alert_management", i.alert_iid, "details")}>Alert #{i.alert_iid}</Link>
          ) : (
            "—"
          )}
        </dd>
      </dl>
    </>
  );
}
