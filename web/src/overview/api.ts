import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { projectApi, request } from "../api/client";
import { pageInfo, query } from "../api/paging";
import type { Overview, ProjectOpenAlerts } from "./types";

/** Refreshed while the page is open, as the alerts list is. */
const POLL_MS = 30_000;

/** The project overview: one call. */
export function useOverview(fullPath: string) {
  return useQuery({
    queryKey: ["overview", fullPath],
    queryFn: async ({ signal }) =>
      (await request<Overview>(`${projectApi(fullPath)}/alert_management/overview`, { signal })).data,
    refetchInterval: POLL_MS,
  });
}

/** Your projects with their open alerts, burning first: one call for the page. */
export function useOpenAlertsByProject(search: string, page: number) {
  return useQuery({
    queryKey: ["open-alerts-by-project", { search, page }],
    queryFn: async ({ signal }) => {
      const r = await request<ProjectOpenAlerts[]>(
        `/api/v4/alert_management/open_alerts_by_project${query({ search, page, per_page: 20 })}`,
        { signal },
      );
      return { projects: r.data, page: pageInfo(r.headers) };
    },
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
  });
}
