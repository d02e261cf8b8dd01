export interface User {
  id: number;
  username: string;
  name: string;
  email?: string;
  is_admin?: boolean;
}

export interface Session {
  user: User;
  csrf_token: string;
}

export type Tier = "free" | "premium" | "ultimate";

export interface Project {
  id: number;
  name: string;
  path: string;
  path_with_namespace: string;
  namespace: { id: number; full_path: string; kind?: string };
  tier?: Tier;
  /** The caller's effective access level, when the API includes it. */
  access_level?: number;
  permissions?: {
    project_access?: { access_level: number } | null;
    group_access?: { access_level: number } | null;
  };
}

/** The caller's effective access level as the project JSON carries it (0 when it does not). */
export function projectAccessLevel(project: Project): number {
  return (
    project.access_level ??
    Math.max(project.permissions?.project_access?.access_level ?? 0, project.permissions?.group_access?.access_level ?? 0)
  );
}

export interface Member {
  id: number;
  username: string;
  name: string;
  access_level: number;
}

export const ACCESS = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

export function roleName(level: number): string {
  if (level >= 50) return "Owner";
  if (level >= 40) return "Maintainer";
  if (level >= 30) return "Developer";
  if (level >= 20) return "Reporter";
  if (level >= 10) return "Guest";
  return "No access";
}
