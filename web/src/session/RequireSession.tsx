import type { ReactNode } from "react";
import { Navigate, useLocation } from "react-router";
import { QueryState } from "../ui/QueryState";
import { useSession } from "./api";
import { signInPath } from "./redirect";

/** Signed-out visitors of any console page land on sign-in, which brings them back here. */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  return (
    <QueryState query={session} loading="Checking your session">
      {(signedIn) =>
        signedIn ? children : <Navigate replace to={signInPath(location.pathname + location.search + location.hash)} />
      }
    </QueryState>
  );
}
