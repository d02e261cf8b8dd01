import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";

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
}

/** Where a setting lives: the global one, or a group's or project's (by id). */
export type Source = { kind: "global" } | { kind: "group" | "project"; id: number; name: string };

const sourceUrl = (s: Source) =>
  s.kind === "global" ? "/api/v4/notification_settings" : `/api/v4/${s.kind}s/${s.id}/notification_settings`;
const key = (s: Source) => ["notification-settings", s.kind, s.kind === "global" ? 0 : s.id] as const;

export function useNotificationSetting(source: Source) {
  return useQuery({
    queryKey: key(source),
    queryFn: ({ signal }) => api.get<NotificationSetting>(sourceUrl(source), signal),
  });
}

/** Saves at once; the answer (with `events` when custom) becomes the cached setting. */
export function useSaveNotificationSetting(source: Source) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (change: Record<string, string | boolean>) => api.put<NotificationSetting>(sourceUrl(source), change),
    onSuccess: (setting) => client.setQueryData(key(source), setting),
  });
}

export function useEmails() {
  return useQuery({
    queryKey: ["user-emails"],
    queryFn: ({ signal }) => api.get<Email[]>("/api/v4/user/emails", signal),
  });
}

/** The groups and projects the user is a member of (the first 100 of each, by full path). */
export function useMemberships() {
  return useQuery({
    queryKey: ["memberships"],
    queryFn: async ({ signal }) => {
      const [groups, projects] = await Promise.all([
        api.get<Membership[]>("/api/v4/groups?membership=true&per_page=100", signal),
        api.get<{ id: number; name: string; path_with_namespace: string }[]>(
          "/api/v4/projects?membership=true&per_page=100",
          signal,
        ),
      ]);
      return {
        groups: [...groups].sort((a, b) => a.full_path.localeCompare(b.full_path)),
        projects: projects
          .map((p) => ({ id: p.id, name: p.name, full_path: p.path_with_namespace }))
          .sort((a, b) => a.full_path.localeCompare(b.full_path)),
      };
    },
  });
}
