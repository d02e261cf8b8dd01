import { type ReactNode, Suspense } from "react";
import { useLocation } from "react-router";
import { ACCESS } from "../api/types";
import { usePrefetchOverview } from "../overview/api";
import { useCurrentUser } from "../session/api";
import { ErrorBoundary } from "../ui/ErrorBoundary";
import { Loading } from "../ui/Loading";
import { lazyPage } from "../ui/lazyPage";
import { NotFound } from "../ui/NotFound";
import { QueryState } from "../ui/QueryState";
import { splitProjectAddress } from "./address";
import { useProject } from "./api";
import { ProjectContext } from "./context";
import { ProjectNav } from "./ProjectNav";
import { ProjectOverviewPage } from "./ProjectOverviewPage";

// Pages past the overview load on demand, so that the first load stays small.
const AlertsListPage = lazyPage(() => import("../alerts/AlertsListPage"));
const AlertDetailsPage = lazyPage(() => import("../alerts/AlertDetailsPage"));
const SilencesPage = lazyPage(() => import("../silences/SilencesPage"));
const IncidentsListPage = lazyPage(() => import("../incidents/IncidentsListPage"));
const IncidentDetailsPage = lazyPage(() => import("../incidents/IncidentDetailsPage"));
const OperationsSettingsPage = lazyPage(() => import("../integrations/OperationsSettingsPage"));
const OncallSchedulesPage = lazyPage(() => import("../oncall/OncallSchedulesPage"));
const EscalationPoliciesPage = lazyPage(() => import("../escalation/EscalationPoliciesPage"));
const ChatIntegrationsPage = lazyPage(() => import("../channels/ChatIntegrationsPage"));
const HooksPage = lazyPage(() => import("../channels/HooksPage"));

const isIid = (s: string | undefined) => !!s && /^\d{1,15}$/.test(s) && Number(s) > 0;

/** Which page an address below a project is, and the least role that sees it. */
function pageFor(page: string[]): { element: ReactNode; minAccess: number } | null {
  const [a, b, c, ...rest] = page;
  if (page.length === 0) return { element: <ProjectOverviewPage />, minAccess: ACCESS.guest };
  if (a === "alert_management" && !b) return { element: <AlertsListPage />, minAccess: ACCESS.developer };
  if (a === "alert_management" && b === "silences" && !c) return { element: <SilencesPage />, minAccess: ACCESS.developer };
  if (a === "alert_management" && isIid(b) && c === "details" && rest.length === 0)
    return { element: <AlertDetailsPage iid={Number(b)} />, minAccess: ACCESS.developer };
  if (a === "incidents" && !b) return { element: <IncidentsListPage />, minAccess: ACCESS.developer };
  if (a === "incidents" && isIid(b) && !c)
    return { element: <IncidentDetailsPage iid={Number(b)} />, minAccess: ACCESS.developer };
  if (a === "oncall_schedules" && !b) return { element: <OncallSchedulesPage />, minAccess: ACCESS.developer };
  if (a === "escalation_policies" && !b) return { element: <EscalationPoliciesPage />, minAccess: ACCESS.developer };
  if (a === "settings" && b === "operations" && !c) return { element: <OperationsSettingsPage />, minAccess: ACCESS.developer };
  if (a === "settings" && b === "integrations" && !c) return { element: <ChatIntegrationsPage />, minAccess: ACCESS.maintainer };
  if (a === "hooks" && !b) return { element: <HooksPage />, minAccess: ACCESS.maintainer };
  return null;
}

export function ProjectRoutes() {
  const location = useLocation();
  const user = useCurrentUser();
  const address = splitProjectAddress(location.pathname);
  const project = useProject(address?.fullPath ?? "", user);
  usePrefetchOverview(address?.page.length === 0 ? address.fullPath : undefined);
  if (!address) return <NotFound />;
  const page = pageFor(address.page);
  if (!page) return <NotFound />;
  return (
    <QueryState query={project} loading="Loading the project" notFound={<NotFound />}>
      {(found) =>
        // Like GitLab: a page the member's role does not reach does not exist for them.
        found.access < page.minAccess ? (
          <NotFound />
        ) : (
          <ProjectContext.Provider value={found}>
            <div className="project-layout">
              <ProjectNav />
              <div className="project-content">
                <ErrorBoundary key={location.pathname}>
                  <Suspense fallback={<Loading />}>{page.element}</Suspense>
                </ErrorBoundary>
              </div>
            </div>
          </ProjectContext.Provider>
        )
      }
    </QueryState>
  );
}
