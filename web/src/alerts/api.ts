import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, projectApi, request } from "../api/client";
import { pageInfo, query } from "../api/paging";
import { polled } from "../api/polling";
import type { Alert, AlertDetails, AlertStatus, AlertTab, ListFilters, ListParams } from "./types";

/**
 * New alerts appear without a reload: the list and its counts are polled. One poll is five small
 * requests whatever the alert rate, only while the page is visible, so a storm cannot freeze it;
 * and a poll waits longer when the last answer was slow (`polled`), so an open page cannot keep a
 * slow store busy.
 */
const POLL_MS = 3_000;

const base = (fullPath: string) => `${projectApi(fullPath)}/alert_management`;

const filterQuery = (f: ListFilters) => ({
  search: f.search,
  severity: f.severity,
  service: f.service,
  monitoring_tool: f.monitoringTool,
});

/** The Open tab is triggered and acknowledged together: one request, `status=triggered,acknowledged`. */
const OPEN = "triggered,acknowledged";

async function listPage(fullPath: string, status: AlertStatus | typeof OPEN | "", p: ListParams, signal: AbortSignal) {
  const r = await request<Alert[]>(
    `${base(fullPath)}/alerts${query({ status, ...filterQuery(p), order_by: p.orderBy, sort: p.sort, page: p.page, per_page: p.perPage })}`,
    { signal },
  );
  return { alerts: r.data, info: pageInfo(r.headers), notice: r.headers.get("X-Alert-Management-Notice") };
}

export function useAlerts(fullPath: string, p: ListParams) {
  return useQuery({
    ...polled(POLL_MS, {
      queryKey: ["alerts", fullPath, "list", p],
      queryFn: ({ signal }) => listPage(fullPath, p.tab === "open" ? OPEN : p.tab === "all" ? "" : p.tab, p, signal),
    }),
    placeholderData: keepPreviousData,
  });
}

/** The number of alerts of each tab (X-Total of one-item pages). */
export function useAlertCounts(fullPath: string, filters: ListFilters) {
  return useQuery({
    ...polled(POLL_MS, {
      queryKey: ["alerts", fullPath, "counts", filters],
      queryFn: async ({ signal }): Promise<Record<AlertTab, number>> => {
        const count = async (status: AlertStatus | "") =>
          pageInfo(
            (await request(`${base(fullPath)}/alerts${query({ status, ...filterQuery(filters), per_page: 1 })}`, { signal }))
              .headers,
          ).total;
        const [triggered, acknowledged, resolved, all] = await Promise.all([
          count("triggered"),
          count("acknowledged"),
          count("resolved"),
          count(""),
        ]);
        return { open: triggered + acknowledged, triggered, acknowledged, resolved, all };
      },
    }),
    placeholderData: keepPreviousData,
  });
}

export function useAlert(fullPath: string, iid: number) {
  return useQuery(
    polled(POLL_MS * 2, {
      queryKey: ["alerts", fullPath, "details", iid],
      queryFn: ({ signal }) => api.get<AlertDetails>(`${base(fullPath)}/alerts/${iid}`, signal),
    }),
  );
}

export function useUpdateAlertStatus(fullPath: string, iid: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (status: AlertStatus) => api.put<AlertDetails>(`${base(fullPath)}/alerts/${iid}`, { status }),
    onSuccess: (alert) => {
      client.setQueryData(["alerts", fullPath, "details", iid], alert);
      return client.invalidateQueries({ queryKey: ["alerts", fullPath] });
    },
  });
}
