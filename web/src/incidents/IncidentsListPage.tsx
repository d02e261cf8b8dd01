import { Link, useSearchParams } from "react-router";
import { projectPath } from "../projects/address";
import { useCurrentProject } from "../projects/context";
import { ErrorMessage } from "../ui/ErrorMessage";
import { capitalize } from "../ui/format";
import { Loading } from "../ui/Loading";
import { Pager } from "../ui/Pager";
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
        {incidents.isPending ? (
          <Loading label="Loading incidents" />
        ) : incidents.isError ? (
          <ErrorMessage error={incidents.error} />
        ) : incidents.data.incidents.length === 0 ? (
          <p className="empty">No incidents to display.</p>
        ) : (
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
                {incidents.data.incidents.map((i) => (
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
              totalPages={incidents.data.info.totalPages}
              onPage={(n) => setParams({ ...(status !== "open" ? { status: status || "all" } : {}), page: String(n) })}
            />
          </>
        )}
      </Tabs>
    </>
  );
}
