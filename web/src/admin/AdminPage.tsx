import { useCurrentUser } from "../session/api";
import { NotFound } from "../ui/NotFound";
import { useDocumentTitle } from "../ui/title";
import { GroupsSection } from "./GroupsSection";
import { NewProjectForm } from "./NewProjectForm";
import { UsersSection } from "./UsersSection";

/** Users and plans; for anyone but an administrator the page does not exist. */
export default function AdminPage() {
  const user = useCurrentUser();
  useDocumentTitle("Admin Area");
  if (!user.is_admin) return <NotFound />;
  return (
    <>
      <h1>Admin Area</h1>
      <UsersSection />
      <GroupsSection />
      <NewProjectForm />
    </>
  );
}
