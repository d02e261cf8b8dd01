import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, request } from "../api/client";
import { pageInfo, query } from "../api/paging";
import type { Tier } from "../api/types";

export interface AdminUser {
  id: number;
  username: string;
  name: string;
  email: string;
  state: "active" | "blocked" | string;
  is_admin: boolean;
}

export interface AdminGroup {
  id: number;
  name: string;
  path: string;
  full_path: string;
  parent_id: number | null;
  plan: Tier;
}

export const PLANS: { value: Tier; label: string }[] = [
  { value: "free", label: "Free" },
  { value: "premium", label: "Premium" },
  { value: "ultimate", label: "Ultimate" },
];

function paged<T>(what: "users" | "groups", search: string, page: number) {
  return async ({ signal }: { signal: AbortSignal }) => {
    const r = await request<T[]>(`/api/v4/${what}${query({ search, page, per_page: 20 })}`, { signal });
    return { rows: r.data, info: pageInfo(r.headers) };
  };
}

export function useUsers(search: string, page: number, enabled = true) {
  return useQuery({
    enabled,
    queryKey: ["admin", "users", { search, page }],
    queryFn: paged<AdminUser>("users", search, page),
    placeholderData: keepPreviousData,
  });
}

export function useGroups(search: string, page: number, enabled = true) {
  return useQuery({
    enabled,
    queryKey: ["admin", "groups", { search, page }],
    queryFn: paged<AdminGroup>("groups", search, page),
    placeholderData: keepPreviousData,
  });
}

function useAdminMutation<I, O>(fn: (input: I) => Promise<O>, what: "users" | "groups") {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => client.invalidateQueries({ queryKey: ["admin", what] }),
  });
}

export const useCreateUser = () =>
  useAdminMutation(
    (input: { username: string; email: string; name: string; password: string; admin: boolean }) =>
      api.post<AdminUser>("/api/v4/users", input),
    "users",
  );

export const useUserAction = () =>
  useAdminMutation(
    (input: { user: AdminUser; action: "block" | "unblock" | "admin" | "unadmin" }) =>
      input.action === "block" || input.action === "unblock"
        ? api.post<unknown>(`/api/v4/users/${input.user.id}/${input.action}`)
        : api.put<unknown>(`/api/v4/users/${input.user.id}`, { admin: input.action === "admin" }),
    "users",
  );

export const useCreateGroup = () =>
  useAdminMutation(
    (input: { name: string; path: string; plan: Tier }) => api.post<AdminGroup>("/api/v4/groups", input),
    "groups",
  );

export const useChangePlan = () =>
  useAdminMutation(
    (input: { group: AdminGroup; plan: Tier }) => api.put(`/api/v4/namespaces/${input.group.id}`, { plan: input.plan }),
    "groups",
  );

/** Every group, by full path (the first 100), for the new project's namespace. */
export function useAllGroups(enabled = true) {
  return useQuery({
    enabled,
    queryKey: ["admin", "groups", "all"],
    queryFn: ({ signal }) => api.get<AdminGroup[]>("/api/v4/groups?per_page=100", signal),
  });
}

export function useCreateProject() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; path?: string; namespace_id?: number }) =>
      api.post<{ id: number; path_with_namespace: string }>("/api/v4/projects", input),
    onSuccess: () => client.invalidateQueries({ queryKey: ["projects"] }),
  });
}
