import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { projectApi, request } from "../api/client";
import { pageInfo, query } from "../api/paging";
import { polled } from "../api/polling";
import type { Overview, ProjectOpenAlerts } from "./types";

/** Refreshed while the page is open, as the alerts list is. */
const POLL_MS = 30_000;

const overviewQuery = (fullPath: string) => ({
  queryKey: ["overview", fullPath],
  queryFn: async ({ signal }: { signal: AbortSignal }) =>
    (await request<Overview>(`${projectApi(fullPath)}/alert_management/overview`, { signal })).data,
});

/** The project overview: one call. */
export function useOverview(fullPath: string, enabled = true) {
  return useQuery({ ...polled(POLL_MS, overviewQuery(fullPath)), enabled });
}

/**
 * Starts the overview's call together with the project's (instead of after it): the project
 * page asks for it as soon as the address says it is the overview. For a member below Developer
 * the answer is a 403 that nothing shows (the page does not read the overview then).
 */
export function usePrefetchOverview(fullPath: string | undefined) {
  const client = useQueryClient();
  useEffect(() => {
    if (fullPath) void client.prefetchQuery(overviewQuery(fullPath));
  }, [client, fullPath]);
}

/** Your projects with their open alerts, burning first: one call for the page. */
export function useOpenAlertsByProject(search: string, page: number) {
  return useQuery({
    ...polled(POLL_MS, {
      queryKey: ["open-alerts-by-project", { search, page }],
      queryFn: async ({ signal }) => {
        const r = await request<ProjectOpenAlerts[]>(
          `/api/v4/alert_management/open_alerts_by_project${query({ search, page, per_page: 20 })}`,
          { signal },
        );
        return { projects: r.data, page: pageInfo(r.headers) };
      },
    }),
    placeholderData: keepPreviousData,
  });
}
