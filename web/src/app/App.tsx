import { type ReactNode, Suspense } from "react";
import { Route, Routes } from "react-router";
import { DashboardPage } from "../projects/DashboardPage";
import { ProjectRoutes } from "../projects/ProjectRoutes";
import { RequireSession } from "../session/RequireSession";
import { SignInPage } from "../session/SignInPage";
import { Loading } from "../ui/Loading";
import { lazyPage } from "../ui/lazyPage";
import { Layout } from "./Layout";

const NotificationsPage = lazyPage(() => import("../notifications/NotificationsPage"));
const PersonalAccessTokensPage = lazyPage(() => import("../tokens/PersonalAccessTokensPage"));
const AdminPage = lazyPage(() => import("../admin/AdminPage"));

/** A signed-in page loaded on demand. */
const signedIn = (page: ReactNode) => (
  <RequireSession>
    <Suspense fallback={<Loading />}>{page}</Suspense>
  </RequireSession>
);

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
        <Route path="/-/profile/notifications" element={signedIn(<NotificationsPage />)} />
        <Route path="/-/user_settings/personal_access_tokens" element={signedIn(<PersonalAccessTokensPage />)} />
        <Route path="/admin" element={signedIn(<AdminPage />)} />
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
