import { Fragment, useState } from "react";
import { useCurrentUser } from "../session/api";
import { Field } from "../ui/Field";
import { Pager } from "../ui/Pager";
import { PENDING, QueryState } from "../ui/QueryState";
import { useDocumentTitle } from "../ui/title";
import {
  type Membership,
  type NotificationSetting,
  type SettingChange,
  type Source,
  useEmails,
  useMemberships,
  useNotificationSetting,
  useNotificationSettings,
  useSaveNotificationSetting,
} from "./api";
import { GlobalSettings } from "./GlobalSettings";
import { LevelSelect } from "./LevelSelect";
import { LEVELS } from "./levels";

const PER_PAGE = 50;
const GLOBAL = { kind: "global" } as const;

type Kind = "group" | "project";
type Save = (source: Source, change: SettingChange) => Promise<NotificationSetting>;
type SettingQuery = ReturnType<typeof useNotificationSettings>[number];

/** Case-insensitive substring of the display name or the path. */
const matches = (search: string) => (r: Membership) =>
  !search || `${r.display_name ?? ""} ${r.full_path}`.toLowerCase().includes(search.toLowerCase());

/** One page of rows (50), the page number kept within the pages there are. */
function pageOf(rows: Membership[], page: number) {
  const pages = Math.max(1, Math.ceil(rows.length / PER_PAGE));
  const current = Math.min(page, pages);
  return { pages, current, rows: rows.slice((current - 1) * PER_PAGE, current * PER_PAGE) };
}

const sourceOf = (kind: Kind, r: Membership): Source => ({ kind, id: r.id, name: r.full_path });

interface TableProps {
  kind: Kind;
  /** Every row matching the filter, and the page shown with each row's setting. */
  total: number;
  shown: { pages: number; current: number; rows: Membership[] };
  settings: SettingQuery[];
  search: string;
  onPage: (page: number) => void;
  onSave: Save;
  onSaved: (m: string) => void;
}

function MembershipTable({ kind, total, shown, settings, search, onPage, onSave, onSaved }: TableProps) {
  const title = kind === "group" ? "Groups" : "Projects";
  if (total === 0)
    return <p className="empty">{search ? `No ${kind}s match “${search}”.` : `You are not a member of any ${kind}.`}</p>;
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
          {shown.rows.map((r, i) => (
            <tr key={r.id}>
              <td>
                {r.display_name ?? r.full_path}
                <br />
                <span className="muted">{r.full_path}</span>
              </td>
              <td>
                <QueryState query={settings[i] ?? PENDING}>
                  {(setting) => (
                    <LevelSelect
                      label={`Notification level for ${r.full_path}`}
                      setting={setting}
                      onSave={(change) => onSave(sourceOf(kind, r), change)}
                      onSaved={onSaved}
                    />
                  )}
                </QueryState>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager label={`${title} pages`} page={shown.current} totalPages={shown.pages} onPage={onPage} />
    </>
  );
}

/** `/-/profile/notifications`: the page reads every setting shown and saves each change at once. */
export default function NotificationsPage() {
  useDocumentTitle("Notifications");
  const user = useCurrentUser();
  const memberships = useMemberships();
  const emails = useEmails();
  const global = useNotificationSetting(GLOBAL);
  const save = useSaveNotificationSetting();
  const onSave: Save = (source, change) => save.mutateAsync({ source, change });
  const [saved, setSaved] = useState("");
  const [search, setSearch] = useState("");
  const [pages, setPages] = useState({ group: 1, project: 1 });
  const groups = (memberships.data?.groups ?? []).filter(matches(search));
  const projects = (memberships.data?.projects ?? []).filter(matches(search));
  const shownGroups = pageOf(groups, pages.group);
  const shownProjects = pageOf(projects, pages.project);
  const settings = useNotificationSettings([
    ...shownGroups.rows.map((r) => sourceOf("group", r)),
    ...shownProjects.rows.map((r) => sourceOf("project", r)),
  ]);
  const table = (kind: Kind, all: Membership[], shown: typeof shownGroups, from: number) => (
    <MembershipTable
      kind={kind}
      total={all.length}
      shown={shown}
      settings={settings.slice(from, from + shown.rows.length)}
      search={search}
      onPage={(page) => setPages((p) => ({ ...p, [kind]: page }))}
      onSave={onSave}
      onSaved={setSaved}
    />
  );
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
        <QueryState query={global} loading="Loading your notification settings">
          {(setting) => (
            <QueryState query={emails} loading="Loading your e-mails">
              {(list) => (
                <GlobalSettings
                  primary={user.email ?? ""}
                  emails={list}
                  setting={setting}
                  onSave={(change) => onSave(GLOBAL, change)}
                  onSaved={setSaved}
                />
              )}
            </QueryState>
          )}
        </QueryState>
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
      <QueryState query={memberships} loading="Loading your groups and projects">
        {(all) => (
          <>
            <search className="toolbar">
              <Field label="Filter groups and projects" inline>
                {(control) => (
                  <input
                    {...control}
                    type="search"
                    value={search}
                    onChange={(e) => {
                      setSearch(e.target.value.trim());
                      setPages({ group: 1, project: 1 });
                    }}
                  />
                )}
              </Field>
            </search>
            <section aria-labelledby="groups-title">
              <h2 id="groups-title">Groups ({all.groups.length})</h2>
              {table("group", groups, shownGroups, 0)}
            </section>
            <section aria-labelledby="projects-title">
              <h2 id="projects-title">Projects ({all.projects.length})</h2>
              {table("project", projects, shownProjects, shownGroups.rows.length)}
            </section>
          </>
        )}
      </QueryState>
    </>
  );
}
