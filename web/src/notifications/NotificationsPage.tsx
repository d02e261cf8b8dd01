import { Fragment, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Loading } from "../ui/Loading";
import { Pager } from "../ui/Pager";
import { useDocumentTitle } from "../ui/title";
import { type Membership, useMemberships } from "./api";
import { LevelSelect } from "./LevelSelect";
import { LEVELS } from "./levels";
import { NotificationEmail } from "./NotificationEmail";

const PER_PAGE = 50;

function MembershipTable({
  kind,
  rows,
  search,
  onSaved,
}: {
  kind: "group" | "project";
  rows: Membership[];
  search: string;
  onSaved: (m: string) => void;
}) {
  const [page, setPage] = useState(1);
  const title = kind === "group" ? "Groups" : "Projects";
  if (rows.length === 0)
    return <p className="empty">{search ? `No ${kind}s match “${search}”.` : `You are not a member of any ${kind}.`}</p>;
  const pages = Math.max(1, Math.ceil(rows.length / PER_PAGE));
  const current = Math.min(page, pages);
  return (
    <>
      <table>
        <caption className="visually-hidden">{title}</caption>
        <thead>
          <tr>
            <th scope="col">{kind === "group" ? "Group" : "Project"}</th>
            <th scope="col">Notification level</th>
          </tr>
        </thead>
        <tbody>
          {rows.slice((current - 1) * PER_PAGE, current * PER_PAGE).map((r) => (
            <tr key={r.id}>
              <td>
                {r.display_name ?? r.full_path}
                <br />
                <span className="muted">{r.full_path}</span>
              </td>
              <td>
                <LevelSelect
                  source={{ kind, id: r.id, name: r.full_path }}
                  label={`Notification level for ${r.full_path}`}
                  onSaved={onSaved}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager label={`${title} pages`} page={current} totalPages={pages} onPage={setPage} />
    </>
  );
}

/** Case-insensitive substring of the display name or the path. */
const matches = (search: string) => (r: Membership) =>
  !search || `${r.display_name ?? ""} ${r.full_path}`.toLowerCase().includes(search.toLowerCase());

export default function NotificationsPage() {
  useDocumentTitle("Notifications");
  const memberships = useMemberships();
  const [saved, setSaved] = useState("");
  const [search, setSearch] = useState("");
  return (
    <>
      <h1>Notifications</h1>
      <p>
        You can specify notification level per group or per project. By default, all groups and projects use the global
        notifications setting.
      </p>
      <p role="status" className={saved ? "message success" : "visually-hidden"}>
        {saved}
      </p>
      <section className="card stack" aria-labelledby="global-title">
        <h2 id="global-title">Global settings</h2>
        <NotificationEmail onSaved={setSaved} />
        <div className="field">
          <span id="global-level-label">Global notification level</span>
          <LevelSelect source={{ kind: "global" }} label="Global notification level" onSaved={setSaved} />
        </div>
        <h3>Notification levels</h3>
        <dl className="facts">
          {LEVELS.map((l) => (
            <Fragment key={l.value}>
              <dt>{l.label}</dt>
              <dd>{l.help}</dd>
            </Fragment>
          ))}
        </dl>
      </section>
      {memberships.isPending ? (
        <Loading label="Loading your groups and projects" />
      ) : memberships.isError ? (
        <ErrorMessage error={memberships.error} />
      ) : (
        <>
          <search className="toolbar">
            <label className="field inline">
              <span>Filter groups and projects</span>
              <input type="search" value={search} onChange={(e) => setSearch(e.target.value.trim())} />
            </label>
          </search>
          <section aria-labelledby="groups-title">
            <h2 id="groups-title">Groups ({memberships.data.groups.length})</h2>
            <MembershipTable
              key={`g:${search}`}
              kind="group"
              rows={memberships.data.groups.filter(matches(search))}
              search={search}
              onSaved={setSaved}
            />
          </section>
          <section aria-labelledby="projects-title">
            <h2 id="projects-title">Projects ({memberships.data.projects.length})</h2>
            <MembershipTable
              key={`p:${search}`}
              kind="project"
              rows={memberships.data.projects.filter(matches(search))}
              search={search}
              onSaved={setSaved}
            />
          </section>
        </>
      )}
    </>
  );
}
