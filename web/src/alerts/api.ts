import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, projectApi, request } from "../api/client";
import { pageInfo, query } from "../api/paging";
import { mergePage } from "./merge";
import type { Alert, AlertDetails, AlertStatus, AlertTab, ListFilters, ListParams } from "./types";

/**
 * New alerts appear without a reload: the list and its counts are polled. One poll is five small
 * requests whatever the alert rate, only while the page is visible, so a storm cannot freeze it.
 */
const POLL_MS = 3_000;

const base = (fullPath: string) => `${projectApi(fullPath)}/alert_management`;

const filterQuery = (f: ListFilters) => ({
  search: f.search,
  severity: f.severity,
  service: f.service,
  monitoring_tool: f.monitoringTool,
});

async function listPage(
  fullPath: string,
  status: AlertStatus | "",
  p: ListParams,
  page: number,
  perPage: number,
  signal: AbortSignal,
) {
  const r = await request<Alert[]>(
    `${base(fullPath)}/alerts${query({ status, ...filterQuery(p), order_by: p.orderBy, sort: p.sort, page, per_page: perPage })}`,
    { signal },
  );
  return { alerts: r.data, info: pageInfo(r.headers), notice: r.headers.get("X-Alert-Management-Notice") };
}

/**
 * The Open tab is triggered and acknowledged together; the API filters one status at a time, so
 * the page is cut from the two lists' heads, merged in the API's order.
 */
async function openPage(fullPath: string, p: ListParams, signal: AbortSignal) {
  // When one of the two statuses has no alert, the page is the other list's page: one request,
  // however deep the page (a merge reads page × 20 alerts of each status).
  const [triggered, acknowledged] = await Promise.all(
    (["triggered", "acknowledged"] as const).map((status) => listPage(fullPath, status, p, 1, 1, signal)),
  );
  if (triggered && acknowledged && (triggered.info.total === 0 || acknowledged.info.total === 0)) {
    const only = triggered.info.total === 0 ? "acknowledged" : "triggered";
    return listPage(fullPath, only, p, p.page, p.perPage, signal);
  }
  const need = p.page * p.perPage;
  const heads = await Promise.all(
    (["triggered", "acknowledged"] as const).map(async (status) => {
      const alerts: Alert[] = [];
      let total = 0;
      let notice: string | null = null;
      for (let page = 1; alerts.length < need; page++) {
        const r = await listPage(fullPath, status, p, page, 100, signal);
        alerts.push(...r.alerts);
        total = r.info.total;
        notice = r.notice;
        if (page >= r.info.totalPages || r.alerts.length === 0) break;
      }
      return { alerts, total, notice };
    }),
  );
  const total = heads.reduce((n, h) => n + h.total, 0);
  return {
    alerts: mergePage(
      heads.map((h) => h.alerts),
      p.orderBy,
      p.sort,
      p.page,
      p.perPage,
    ),
    info: { total, totalPages: Math.max(1, Math.ceil(total / p.perPage)), page: p.page, perPage: p.perPage },
    notice: heads[0]?.notice ?? null,
  };
}

export function useAlerts(fullPath: string, p: ListParams) {
  return useQuery({
    queryKey: ["alerts", fullPath, "list", p],
    queryFn: ({ signal }) =>
      p.tab === "open"
        ? openPage(fullPath, p, signal)
        : listPage(fullPath, p.tab === "all" ? "" : p.tab, p, p.page, p.perPage, signal),
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
  });
}

/** The number of alerts of each tab (X-Total of one-item pages). */
export function useAlertCounts(fullPath: string, filters: ListFilters) {
  return useQuery({
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
    placeholderData: keepPreviousData,
    refetchInterval: POLL_MS,
  });
}

export function useAlert(fullPath: string, iid: number) {
  return useQuery({
    queryKey: ["alerts", fullPath, "details", iid],
    queryFn: ({ signal }) => api.get<AlertDetails>(`${base(fullPath)}/alerts/${iid}`, signal),
    refetchInterval: POLL_MS * 2,
  });
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
