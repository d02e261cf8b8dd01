import { Route, Routes } from "react-router";
import { DashboardPage } from "../projects/DashboardPage";
import { ProjectRoutes } from "../projects/ProjectRoutes";
import { RequireSession } from "../session/RequireSession";
import { SignInPage } from "../session/SignInPage";
import { Layout } from "./Layout";

/**
 * GitLab's page addresses. A project's full path may be nested (`group/sub/project`), so every
 * other address goes to ProjectRoutes, which splits it at `/-/`.
 */
export function App() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route path="/users/sign_in" element={<SignInPage />} />
        <Route
          path="/"
          element={
            <RequireSession>
              <DashboardPage />
            </RequireSession>
          }
        />
        <Route
          path="*"
          element={
            <RequireSession>
              <ProjectRoutes />
            </RequireSession>
          }
        />
      </Route>
    </Routes>
  );
}
