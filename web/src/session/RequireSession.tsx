import type { ReactNode } from "react";
import { Navigate, useLocation } from "react-router";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Loading } from "../ui/Loading";
import { useSession } from "./api";
import { signInPath } from "./redirect";

/** Signed-out visitors of any console page land on sign-in, which brings them back here. */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) return <Loading label="Checking your session" />;
  if (session.isError) return <ErrorMessage error={session.error} />;
  if (!session.data) return <Navigate replace to={signInPath(location.pathname + location.search + location.hash)} />;
  return <>{children}</>;
}
