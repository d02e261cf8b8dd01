import type { Tier } from "../api/types";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Pager } from "../ui/Pager";
import { QueryState } from "../ui/QueryState";
import { PLANS, useChangePlan, type useGroups } from "./api";
import type { ListProps } from "./list";
import { NewGroupForm } from "./NewGroupForm";
import { SearchForm } from "./SearchForm";

const planLabel = (plan: string) => PLANS.find((p) => p.value === plan)?.label ?? plan;

/** One page of groups (read by the page), with the search that chose them. */
export function GroupsSection({ query: groups, search, page, onSearch, onPage }: ListProps<ReturnType<typeof useGroups>>) {
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
      <SearchForm label="Search groups" onSearch={onSearch} />
      <QueryState
        query={groups}
        loading="Loading groups"
        isEmpty={(d) => d.rows.length === 0}
        empty={<p className="empty">{search ? `No groups match “${search}”.` : "No groups yet."}</p>}
      >
        {(d) => (
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
                {d.rows.map((g) => (
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
            <Pager label="Groups pages" page={page} totalPages={d.info.totalPages} onPage={onPage} />
          </>
        )}
      </QueryState>
    </section>
  );
}
