import { Link } from "react-router";
import { projectPath } from "../projects/address";
import { useCurrentProject } from "../projects/context";
import { capitalize } from "../ui/format";
import { NotFound } from "../ui/NotFound";
import { QueryState } from "../ui/QueryState";
import { Time } from "../ui/Time";
import { useDocumentTitle } from "../ui/title";
import { type Incident, useIncident } from "./api";

export default function IncidentDetailsPage({ iid }: { iid: number }) {
  const { fullPath } = useCurrentProject();
  const incident = useIncident(fullPath, iid);
  useDocumentTitle(`Incident #${iid}`);
  return (
    <QueryState query={incident} loading="Loading the incident" notFound={<NotFound />}>
      {(i) => <IncidentDetails fullPath={fullPath} incident={i} />}
    </QueryState>
  );
}

function IncidentDetails({ fullPath, incident: i }: { fullPath: string; incident: Incident }) {
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
