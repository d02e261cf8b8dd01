import { type FormEvent, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { projectAccessLevel, roleName } from "../api/types";
import { ErrorMessage } from "../ui/ErrorMessage";
import { capitalize } from "../ui/format";
import { Loading } from "../ui/Loading";
import { Pager } from "../ui/Pager";
import { useDocumentTitle } from "../ui/title";
import { useProjects } from "./api";

export function DashboardPage() {
  useDocumentTitle("Projects");
  const [params, setParams] = useSearchParams();
  const search = params.get("search") ?? "";
  const page = Math.max(1, Number(params.get("page")) || 1);
  const [text, setText] = useState(search);
  const projects = useProjects(search, page);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setParams(text.trim() ? { search: text.trim() } : {});
  };

  return (
    <>
      <h1>Projects</h1>
      <search>
        <form className="toolbar" onSubmit={submit}>
          <label className="field inline">
            <span>Search projects</span>
            <input type="search" name="search" value={text} onChange={(e) => setText(e.target.value)} />
          </label>
          <button type="submit">Search</button>
        </form>
      </search>
      {projects.isPending ? (
        <Loading label="Loading projects" />
      ) : projects.isError ? (
        <ErrorMessage error={projects.error} />
      ) : projects.data.projects.length === 0 ? (
        <p className="empty">{search ? `No projects match “${search}”.` : "You are not a member of any project yet."}</p>
      ) : (
        <>
          <ul className="project-list">
            {projects.data.projects.map((p) => (
              <li key={p.id}>
                <Link to={`/${p.path_with_namespace}`}>{p.path_with_namespace}</Link>
                <span className={`badge tier-${p.tier ?? "free"}`}>{capitalize(p.tier ?? "free")}</span>
                {projectAccessLevel(p) ? <span className="muted">{roleName(projectAccessLevel(p))}</span> : null}
              </li>
            ))}
          </ul>
          <Pager
            label="Projects pages"
            page={projects.data.page.page}
            totalPages={projects.data.page.totalPages}
            onPage={(n) => setParams({ ...(search ? { search } : {}), page: String(n) })}
          />
        </>
      )}
    </>
  );
}
