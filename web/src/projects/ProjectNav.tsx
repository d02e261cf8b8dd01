import { NavLink } from "react-router";
import { ACCESS } from "../api/types";
import { projectPath } from "./address";
import { useCurrentProject } from "./context";

/** The project's menu: only the pages the member's role reaches. */
export function ProjectNav() {
  const { project, access, fullPath } = useCurrentProject();
  return (
    <nav className="project-nav" aria-label="Project">
      <p className="project-name">{project.name}</p>
      <ul>
        <li>
          <NavLink end to={projectPath(fullPath)}>
            Overview
          </NavLink>
        </li>
        {access >= ACCESS.developer && (
          <>
            <li>
              <NavLink to={projectPath(fullPath, "alert_management")}>Alerts</NavLink>
            </li>
            <li>
              <NavLink to={projectPath(fullPath, "incidents")}>Incidents</NavLink>
            </li>
            <li>
              <NavLink to={projectPath(fullPath, "oncall_schedules")}>On-call schedules</NavLink>
            </li>
            <li>
              <NavLink to={projectPath(fullPath, "escalation_policies")}>Escalation policies</NavLink>
            </li>
            <li>
              <NavLink to={projectPath(fullPath, "settings", "operations")}>
                {access >= ACCESS.maintainer ? "Monitor settings" : "Send test alert"}
              </NavLink>
            </li>
          </>
        )}
      </ul>
    </nav>
  );
}
