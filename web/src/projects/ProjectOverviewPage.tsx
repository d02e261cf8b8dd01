import { useEffect } from "react";
import { Link } from "react-router";
import { ACCESS, roleName } from "../api/types";
import { useOverview } from "../overview/api";
import { ProjectAlertsOverview } from "../overview/ProjectAlertsOverview";
import { preloadChart } from "../overview/StartedChart";
import { capitalize } from "../ui/format";
import { QueryState } from "../ui/QueryState";
import { useDocumentTitle } from "../ui/title";
import { projectPath } from "./address";
import { useCurrentProject } from "./context";

/** The project's facts and, for Developer+, its alerts overview (one API call, read here). */
export function ProjectOverviewPage() {
  const { project, access, fullPath } = useCurrentProject();
  useDocumentTitle(project.name);
  const developer = access >= ACCESS.developer;
  const overview = useOverview(fullPath, developer);
  // The chart code loads while the numbers do.
  useEffect(() => {
    if (developer) void preloadChart();
  }, [developer]);
  return (
    <>
      <h1>{project.name}</h1>
      <dl className="facts">
        <dt>Path</dt>
        <dd>{project.path_with_namespace}</dd>
        <dt>Tier</dt>
        <dd>
          <span className={`badge tier-${project.tier ?? "free"}`}>{capitalize(project.tier ?? "free")}</span>
        </dd>
        <dt>Your role</dt>
        <dd>{roleName(access)}</dd>
      </dl>
      {access >= ACCESS.developer ? (
        <ul className="link-cards">
          <li>
            <Link to={projectPath(fullPath, "alert_management")}>Alerts</Link>
            <span>Alerts received from your monitoring tools, with their occurrence counters.</span>
          </li>
          <li>
            <Link to={projectPath(fullPath, "incidents")}>Incidents</Link>
            <span>Incidents opened from alerts.</span>
          </li>
          <li>
            {access >= ACCESS.maintainer ? (
              <>
                <Link to={projectPath(fullPath, "settings", "operations")}>Monitor settings: Alerts</Link>
                <span>Alert integrations, their credentials and test alerts; alert settings.</span>
              </>
            ) : (
              <>
                <Link to={projectPath(fullPath, "settings", "operations")}>Send a test alert</Link>
                <span>Check that an integration receives alerts.</span>
              </>
            )}
          </li>
        </ul>
      ) : (
        <p>Alerts and incidents are visible to Developers and above.</p>
      )}
      {developer && (
        <QueryState query={overview} loading="Loading the alerts overview">
          {(o) => <ProjectAlertsOverview fullPath={fullPath} overview={o} />}
        </QueryState>
      )}
    </>
  );
}
