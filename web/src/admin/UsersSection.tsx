import { useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Loading } from "../ui/Loading";
import { Pager } from "../ui/Pager";
import { type AdminUser, useUserAction, useUsers } from "./api";
import { NewUserForm } from "./NewUserForm";
import { SearchForm } from "./SearchForm";

export function UsersSection() {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState("");
  const users = useUsers(search, page);
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
      <SearchForm
        label="Search users"
        onSearch={(text) => {
          setSearch(text);
          setPage(1);
        }}
      />
      {users.isPending ? (
        <Loading label="Loading users" />
      ) : users.isError ? (
        <ErrorMessage error={users.error} />
      ) : users.data.rows.length === 0 ? (
        <p className="empty">{search ? `No users match “${search}”.` : "No users."}</p>
      ) : (
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
              {users.data.rows.map((u) => (
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
          <Pager label="Users pages" page={page} totalPages={users.data.info.totalPages} onPage={setPage} />
        </>
      )}
    </section>
  );
}
