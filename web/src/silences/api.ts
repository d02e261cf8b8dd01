import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, projectApi, request } from "../api/client";
import { pageInfo, query } from "../api/paging";
import type { NewSilence, Silence, SilenceState } from "./types";

const base = (fullPath: string) => `${projectApi(fullPath)}/alert_management/silences`;

export function useSilences(fullPath: string, state: SilenceState, page: number) {
  return useQuery({
    queryKey: ["silences", fullPath, state, page],
    queryFn: async ({ signal }) => {
      const r = await request<Silence[]>(`${base(fullPath)}${query({ state, page, per_page: 20 })}`, { signal });
      return { silences: r.data, info: pageInfo(r.headers) };
    },
    placeholderData: keepPreviousData,
  });
}

export function useCreateSilence(fullPath: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewSilence) => api.post<Silence>(base(fullPath), body),
    onSuccess: () => client.invalidateQueries({ queryKey: ["silences", fullPath] }),
  });
}

export function useExpireSilence(fullPath: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(`${base(fullPath)}/${encodeURIComponent(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ["silences", fullPath] }),
  });
}
