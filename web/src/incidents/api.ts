import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, projectApi, request } from "../api/client";
import { pageInfo, query } from "../api/paging";
import { polled } from "../api/polling";

export interface Incident {
  iid: number;
  title: string;
  severity: string;
  status: "open" | "closed";
  alert_iid: number | null;
  created_at: string;
  closed_at: string | null;
}

const base = (fullPath: string) => `${projectApi(fullPath)}/alert_management/incidents`;

export function useIncidents(fullPath: string, status: "" | "open" | "closed", page: number) {
  return useQuery({
    ...polled(10_000, {
      queryKey: ["incidents", fullPath, { status, page }],
      queryFn: async ({ signal }) => {
        const r = await request<Incident[]>(`${base(fullPath)}${query({ status, page, per_page: 20 })}`, { signal });
        return { incidents: r.data, info: pageInfo(r.headers) };
      },
    }),
    placeholderData: keepPreviousData,
  });
}

export function useIncident(fullPath: string, iid: number) {
  return useQuery({
    queryKey: ["incidents", fullPath, "details", iid],
    queryFn: ({ signal }) => api.get<Incident>(`${base(fullPath)}/${iid}`, signal),
  });
}
