import { Link, useSearchParams } from "react-router";
import { projectPath } from "../projects/address";
import { useCurrentProject } from "../projects/context";
import { capitalize } from "../ui/format";
import { Pager } from "../ui/Pager";
import { QueryState } from "../ui/QueryState";
import { Tabs } from "../ui/Tabs";
import { Time } from "../ui/Time";
import { useDocumentTitle } from "../ui/title";
import { useIncidents } from "./api";

export default function IncidentsListPage() {
  const { project, fullPath } = useCurrentProject();
  useDocumentTitle(`Incidents · ${project.name}`);
  const [params, setParams] = useSearchParams();
  const status = params.get("status") === "closed" ? "closed" : params.get("status") === "all" ? "" : "open";
  const page = Math.max(1, Number(params.get("page")) || 1);
  const incidents = useIncidents(fullPath, status, page);
  return (
    <>
      <h1>Incidents</h1>
      <Tabs
        label="Incident status"
        tabs={[
          { key: "open", label: "Open" },
          { key: "closed", label: "Closed" },
          { key: "all", label: "All" },
        ]}
        selected={status || "all"}
        onSelect={(key) => setParams(key === "open" ? {} : { status: key })}
      >
        <QueryState
          query={incidents}
          loading="Loading incidents"
          isEmpty={(d) => d.incidents.length === 0}
          empty={<p className="empty">No incidents to display.</p>}
        >
          {(d) => (
            <>
              <table>
                <caption className="visually-hidden">Incidents</caption>
                <thead>
                  <tr>
                    <th scope="col">Incident</th>
                    <th scope="col">Severity</th>
                    <th scope="col">Status</th>
                    <th scope="col">Alert</th>
                    <th scope="col">Opened</th>
                  </tr>
                </thead>
                <tbody>
                  {d.incidents.map((i) => (
                    <tr key={i.iid}>
                      <td>
                        <Link to={projectPath(fullPath, "incidents", i.iid)}>{i.title}</Link>
                        <span className="muted"> #{i.iid}</span>
                      </td>
                      <td>{capitalize(i.severity)}</td>
                      <td>{capitalize(i.status)}</td>
                      <td>
                        {i.alert_iid ? (
                          <Link to={projectPath(fullPath, "alert_management", i.alert_iid, "details")}>Alert #{i.alert_iid}</Link>
                        ) : (
                          "—"
                        )}
                      </td>
                      <td>
                        <Time iso={i.created_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager
                label="Incidents pages"
                page={page}
                totalPages={d.info.totalPages}
                onPage={(n) => setParams({ ...(status !== "open" ? { status: status || "all" } : {}), page: String(n) })}
              />
            </>
          )}
        </QueryState>
      </Tabs>
    </>
  );
}
