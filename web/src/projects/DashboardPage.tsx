import { type FormEvent, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { SEVERITIES } from "../alerts/types";
import { roleName } from "../api/types";
import { useOpenAlertsByProject } from "../overview/api";
import { total } from "../overview/format";
import type { ProjectOpenAlerts } from "../overview/types";
import { Field } from "../ui/Field";
import { capitalize } from "../ui/format";
import { Pager } from "../ui/Pager";
import { QueryState } from "../ui/QueryState";
import { useDocumentTitle } from "../ui/title";

/** A project's open alerts by severity; a triggered critical stands out. */
function OpenAlertsBadges({ project }: { project: ProjectOpenAlerts }) {
  const open = project.open_alerts;
  if (!open) return null;
  const sum = (s: (typeof SEVERITIES)[number]) => open.triggered[s] + open.acknowledged[s];
  const list = `/${project.path_with_namespace}/-/alert_management`;
  if (total(open.triggered) + total(open.acknowledged) === 0) return <span className="muted">No open alerts</span>;
  return (
    <ul className="open-badges" aria-label={`Open alerts of ${project.path_with_namespace}`}>
      {SEVERITIES.filter((s) => sum(s) > 0).map((s) => {
        const burning = s === "critical" && open.triggered.critical > 0;
        return (
          <li key={s}>
            <Link className={`badge severity-${s}${burning ? " burning" : ""}`} to={`${list}?severity=${s}`}>
              {sum(s)} {s}
              {burning ? ` (${open.triggered.critical} triggered)` : ""}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

export function DashboardPage() {
  useDocumentTitle("Projects");
  const [params, setParams] = useSearchParams();
  const search = params.get("search") ?? "";
  const page = Math.max(1, Number(params.get("page")) || 1);
  const [text, setText] = useState(search);
  const projects = useOpenAlertsByProject(search, page);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setParams(text.trim() ? { search: text.trim() } : {});
  };

  return (
    <>
      <h1>Projects</h1>
      <search>
        <form className="toolbar" onSubmit={submit}>
          <Field label="Search projects" inline>
            {(control) => (
              <input {...control} type="search" name="search" value={text} onChange={(e) => setText(e.target.value)} />
            )}
          </Field>
          <button type="submit">Search</button>
        </form>
      </search>
      <QueryState
        query={projects}
        loading="Loading projects"
        isEmpty={(d) => d.projects.length === 0}
        empty={<p className="empty">{search ? `No projects match “${search}”.` : "You are not a member of any project yet."}</p>}
      >
        {(d) => (
          <>
            <p className="muted">Projects with triggered alerts come first, the most critical at the top.</p>
            <ul className="project-list">
              {d.projects.map((p) => (
                <li key={p.project_id} className={p.open_alerts && p.open_alerts.triggered.critical > 0 ? "burning" : undefined}>
                  <Link to={`/${p.path_with_namespace}`}>{p.path_with_namespace}</Link>
                  <span className={`badge tier-${p.tier || "free"}`}>{capitalize(p.tier || "free")}</span>
                  {p.access_level ? <span className="muted">{roleName(p.access_level)}</span> : null}
                  <OpenAlertsBadges project={p} />
                </li>
              ))}
            </ul>
            <Pager
              label="Projects pages"
              page={d.page.page}
              totalPages={d.page.totalPages}
              onPage={(n) => setParams({ ...(search ? { search } : {}), page: String(n) })}
            />
          </>
        )}
      </QueryState>
    </>
  );
}
