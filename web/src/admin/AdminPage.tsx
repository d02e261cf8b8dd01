import { useState } from "react";
import { useCurrentUser } from "../session/api";
import { NotFound } from "../ui/NotFound";
import { useDocumentTitle } from "../ui/title";
import { useAllGroups, useGroups, useUsers } from "./api";
import { GroupsSection } from "./GroupsSection";
import { NewProjectForm } from "./NewProjectForm";
import { UsersSection } from "./UsersSection";

/** A search and a page number; a new search starts at page 1. */
function useSearchPage() {
  const [state, setState] = useState({ search: "", page: 1 });
  return {
    ...state,
    onSearch: (search: string) => setState({ search, page: 1 }),
    onPage: (page: number) => setState((s) => ({ ...s, page })),
  };
}

/** Users and plans; for anyone but an administrator the page does not exist. The page reads the lists. */
export default function AdminPage() {
  const user = useCurrentUser();
  useDocumentTitle("Admin Area");
  const usersList = useSearchPage();
  const groupsList = useSearchPage();
  const users = useUsers(usersList.search, usersList.page, user.is_admin);
  const groups = useGroups(groupsList.search, groupsList.page, user.is_admin);
  const allGroups = useAllGroups(user.is_admin);
  if (!user.is_admin) return <NotFound />;
  return (
    <>
      <h1>Admin Area</h1>
      <UsersSection query={users} {...usersList} />
      <GroupsSection query={groups} {...groupsList} />
      <NewProjectForm groups={allGroups} />
    </>
  );
}
