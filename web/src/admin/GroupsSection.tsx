import { useState } from "react";
import type { Tier } from "../api/types";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Loading } from "../ui/Loading";
import { Pager } from "../ui/Pager";
import { PLANS, useChangePlan, useGroups } from "./api";
import { NewGroupForm } from "./NewGroupForm";
import { SearchForm } from "./SearchForm";

const planLabel = (plan: string) => PLANS.find((p) => p.value === plan)?.label ?? plan;

export function GroupsSection() {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState("");
  const groups = useGroups(search, page);
  const change = useChangePlan();
  return (
    <section aria-labelledby="groups-title" className="stack">
      <h2 id="groups-title">Groups and plans</h2>
      <p>A project's tier is the plan of its top-level group. Subgroups follow their top-level group.</p>
      <NewGroupForm />
      {change.isError && <ErrorMessage error={change.error} />}
      {change.isSuccess && change.variables && (
        <p role="status" className="message success">
          {change.variables.group.full_path} is now on {planLabel(change.variables.plan)}.
        </p>
      )}
      <SearchForm
        label="Search groups"
        onSearch={(text) => {
          setSearch(text);
          setPage(1);
        }}
      />
      {groups.isPending ? (
        <Loading label="Loading groups" />
      ) : groups.isError ? (
        <ErrorMessage error={groups.error} />
      ) : groups.data.rows.length === 0 ? (
        <p className="empty">{search ? `No groups match “${search}”.` : "No groups yet."}</p>
      ) : (
        <>
          <table>
            <caption className="visually-hidden">Groups</caption>
            <thead>
              <tr>
                <th scope="col">Group</th>
                <th scope="col">Plan</th>
              </tr>
            </thead>
            <tbody>
              {groups.data.rows.map((g) => (
                <tr key={g.id}>
                  <td>{g.full_path}</td>
                  <td>
                    {g.parent_id === null ? (
                      <select
                        aria-label={`Plan of ${g.full_path}`}
                        value={g.plan}
                        disabled={change.isPending}
                        onChange={(e) => change.mutate({ group: g, plan: e.target.value as Tier })}
                      >
                        {PLANS.map((p) => (
                          <option key={p.value} value={p.value}>
                            {p.label}
                          </option>
                        ))}
                      </select>
                    ) : (
                      <span>{planLabel(g.plan)} (from its top-level group)</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Groups pages" page={page} totalPages={groups.data.info.totalPages} onPage={setPage} />
        </>
      )}
    </section>
  );
}
