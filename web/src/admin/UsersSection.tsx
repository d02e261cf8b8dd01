import { ErrorMessage } from "../ui/ErrorMessage";
import { Pager } from "../ui/Pager";
import { QueryState } from "../ui/QueryState";
import { type AdminUser, useUserAction, type useUsers } from "./api";
import type { ListProps } from "./list";
import { NewUserForm } from "./NewUserForm";
import { SearchForm } from "./SearchForm";

/** One page of users (read by the page), with the search that chose them. */
export function UsersSection({ query: users, search, page, onSearch, onPage }: ListProps<ReturnType<typeof useUsers>>) {
  const act = useUserAction();
  const button = (u: AdminUser, action: "block" | "unblock" | "admin" | "unadmin", text: string) => (
    <button
      type="button"
      className={action === "block" ? "danger" : undefined}
      aria-label={`${text}: ${u.username}`}
      disabled={act.isPending}
      onClick={() => act.mutate({ user: u, action })}
    >
      {text}
    </button>
  );
  return (
    <section aria-labelledby="users-title" className="stack">
      <h2 id="users-title">Users</h2>
      <NewUserForm />
      {act.isError && <ErrorMessage error={act.error} />}
      {act.isSuccess && act.variables && (
        <p role="status" className="message success">
          {act.variables.user.username}:{" "}
          {
            { block: "blocked", unblock: "unblocked", admin: "now an administrator", unadmin: "no longer an administrator" }[
              act.variables.action
            ]
          }
          .
        </p>
      )}
      <SearchForm label="Search users" onSearch={onSearch} />
      <QueryState
        query={users}
        loading="Loading users"
        isEmpty={(d) => d.rows.length === 0}
        empty={<p className="empty">{search ? `No users match “${search}”.` : "No users."}</p>}
      >
        {(d) => (
          <>
            <table>
              <caption className="visually-hidden">Users</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Username</th>
                  <th scope="col">Email</th>
                  <th scope="col">State</th>
                  <th scope="col">Role</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {d.rows.map((u) => (
                  <tr key={u.id}>
                    <td>{u.name}</td>
                    <td>{u.username}</td>
                    <td>{u.email}</td>
                    <td>{u.state === "blocked" ? "Blocked" : "Active"}</td>
                    <td>{u.is_admin ? "Administrator" : "Regular"}</td>
                    <td className="actions">
                      {u.state === "blocked" ? button(u, "unblock", "Unblock") : button(u, "block", "Block")}
                      {u.is_admin ? button(u, "unadmin", "Remove administrator") : button(u, "admin", "Make administrator")}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager label="Users pages" page={page} totalPages={d.info.totalPages} onPage={onPage} />
          </>
        )}
      </QueryState>
    </section>
  );
}
