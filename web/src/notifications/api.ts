import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, request } from "../api/client";
import { pageInfo, query } from "../api/paging";
import { displayName } from "./names";

export interface NotificationSetting {
  level: string;
  notification_email?: string;
  events?: Record<string, boolean>;
}

export interface Email {
  id: number;
  email: string;
  confirmed_at: string | null;
}

export interface Membership {
  id: number;
  name: string;
  full_path: string;
  /** "Group / Project" (names, as GitLab shows them). */
  display_name?: string;
}

/** Where a setting lives: the global one, or a group's or project's (by id). */
export type Source = { kind: "global" } | { kind: "group" | "project"; id: number; name: string };

const sourceUrl = (s: Source) =>
  s.kind === "global" ? "/api/v4/notification_settings" : `/api/v4/${s.kind}s/${s.id}/notification_settings`;
const key = (s: Source) => ["notification-settings", s.kind, s.kind === "global" ? 0 : s.id] as const;

const settingQuery = (source: Source) => ({
  queryKey: key(source),
  queryFn: ({ signal }: { signal: AbortSignal }) => api.get<NotificationSetting>(sourceUrl(source), signal),
});

export function useNotificationSetting(source: Source) {
  return useQuery(settingQuery(source));
}

/** The settings of several groups and projects (the rows on screen), one request each. */
export function useNotificationSettings(sources: Source[]) {
  return useQueries({ queries: sources.map(settingQuery) });
}

/** A change to one setting, e.g. `{ level: "watch" }` or `{ level: "custom", new_note: true }`. */
export type SettingChange = Record<string, string | boolean>;

/** Saves at once; the answer (with `events` when custom) becomes the cached setting. */
export function useSaveNotificationSetting() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ source, change }: { source: Source; change: SettingChange }) =>
      api.put<NotificationSetting>(sourceUrl(source), change),
    onSuccess: (setting, { source }) => client.setQueryData(key(source), setting),
  });
}

export function useEmails() {
  return useQuery({
    queryKey: ["user-emails"],
    queryFn: ({ signal }) => api.get<Email[]>("/api/v4/user/emails", signal),
  });
}

/** Every page of a membership list (100 a page, at most 50 pages: 5,000 groups or projects). */
async function allPages<T>(path: string, signal: AbortSignal): Promise<T[]> {
  const rows: T[] = [];
  for (let page = 1; page <= 50; page++) {
    const r = await request<T[]>(`${path}${query({ membership: true, per_page: 100, page })}`, { signal });
    rows.push(...r.data);
    if (page >= pageInfo(r.headers).totalPages) break;
  }
  return rows;
}

/** Every group and project the user is a member of (all pages), by full path, with display names. */
export function useMemberships() {
  return useQuery({
    queryKey: ["memberships"],
    queryFn: async ({ signal }) => {
      const [groups, projects] = await Promise.all([
        allPages<Membership>("/api/v4/groups", signal),
        allPages<{ id: number; name: string; path_with_namespace: string }>("/api/v4/projects", signal),
      ]);
      const names = new Map(groups.map((g) => [g.full_path, g.name]));
      const byPath = (a: Membership, b: Membership) => a.full_path.localeCompare(b.full_path);
      return {
        groups: groups.map((g) => ({ ...g, display_name: displayName(g.full_path, names) })).sort(byPath),
        projects: projects
          .map((p) => ({
            id: p.id,
            name: p.name,
            full_path: p.path_with_namespace,
            display_name: displayName(p.path_with_namespace, names, p.name),
          }))
          .sort(byPath),
      };
    },
  });
}
