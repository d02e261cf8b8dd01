import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, projectApi } from "../api/client";
import type { OncallUser } from "../oncall/api";

/** Section 11's escalation policy (docs/oncall.md): at most one per project. */

export interface Rule {
  status: "acknowledged" | "resolved";
  elapsed_time_seconds: number;
  oncall_schedule: { iid: number; name: string } | null;
  user: OncallUser | null;
}

export interface Policy {
  id: number;
  name: string;
  description: string;
  rules: Rule[];
  repeat_every_seconds: number | null;
  max_repeats: number;
}

export interface PolicyBody {
  name: string;
  description: string;
  rules: { status: string; elapsed_time_seconds: number; oncall_schedule_iid?: number; username?: string }[];
  repeat_every_seconds: number | null;
  max_repeats: number;
}

const base = (fullPath: string) => `${projectApi(fullPath)}/incident_management/escalation_policies`;
const key = (fullPath: string) => ["escalation-policies", fullPath] as const;

export function usePolicies(fullPath: string) {
  return useQuery({ queryKey: key(fullPath), queryFn: ({ signal }) => api.get<Policy[]>(base(fullPath), signal) });
}

/** Creates the policy, or replaces the existing one's fields (`id`). */
export function useSavePolicy(fullPath: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number | undefined; body: PolicyBody }) =>
      id === undefined ? api.post<Policy>(base(fullPath), body) : api.put<Policy>(`${base(fullPath)}/${id}`, body),
    onSuccess: () => client.invalidateQueries({ queryKey: key(fullPath) }),
  });
}

export function useDeletePolicy(fullPath: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete(`${base(fullPath)}/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: key(fullPath) }),
  });
}
