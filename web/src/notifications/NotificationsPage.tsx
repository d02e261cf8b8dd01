import { Fragment, useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Loading } from "../ui/Loading";
import { useDocumentTitle } from "../ui/title";
import { type Membership, useMemberships } from "./api";
import { LevelSelect } from "./LevelSelect";
import { LEVELS } from "./levels";
import { NotificationEmail } from "./NotificationEmail";

function MembershipTable({
  kind,
  rows,
  onSaved,
}: {
  kind: "group" | "project";
  rows: Membership[];
  onSaved: (m: string) => void;
}) {
  const title = kind === "group" ? "Groups" : "Projects";
  if (rows.length === 0) return <p className="empty">You are not a member of any {kind}.</p>;
  return (
    <table>
      <caption className="visually-hidden">{title}</caption>
      <thead>
        <tr>
          <th scope="col">{kind === "group" ? "Group" : "Project"}</th>
          <th scope="col">Notification level</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id}>
            <td>{r.full_path}</td>
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
  );
}

export default function NotificationsPage() {
  useDocumentTitle("Notifications");
  const memberships = useMemberships();
  const [saved, setSaved] = useState("");
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
          <section aria-labelledby="groups-title">
            <h2 id="groups-title">Groups ({memberships.data.groups.length})</h2>
            <MembershipTable kind="group" rows={memberships.data.groups} onSaved={setSaved} />
          </section>
          <section aria-labelledby="projects-title">
            <h2 id="projects-title">Projects ({memberships.data.projects.length})</h2>
            <MembershipTable kind="project" rows={memberships.data.projects} onSaved={setSaved} />
          </section>
        </>
      )}
    </>
  );
}
