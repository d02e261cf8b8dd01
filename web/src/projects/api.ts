import { useQuery } from "@tanstack/react-query";
import { ApiError, api, projectApi, request } from "../api/client";
import { pageInfo, query } from "../api/paging";
import { ACCESS, type Member, type Project, projectAccessLevel, type User } from "../api/types";

/** The caller's access level: from the project when the API includes it, else from its members. */
async function accessLevel(project: Project, user: User, signal: AbortSignal): Promise<number> {
  const fromProject = projectAccessLevel(project);
  if (fromProject) return fromProject;
  if (user.is_admin) return ACCESS.owner;
  for (let page = 1; page <= 50; page++) {
    const r = await request<Member[]>(`${projectApi(project.path_with_namespace)}/members/all${query({ page, per_page: 100 })}`, {
      signal,
    });
    const me = r.data.find((m) => m.id === user.id);
    if (me) return me.access_level;
    if (page >= pageInfo(r.headers).totalPages) break;
  }
  return 0;
}

export interface ProjectWithAccess {
  project: Project;
  /** The caller's effective access level (admins: Owner). */
  access: number;
}

/** A project by full path and the caller's role in it; 404 for what the caller may not see. */
export function useProject(fullPath: string, user: User) {
  return useQuery({
    queryKey: ["project", fullPath],
    queryFn: async ({ signal }): Promise<ProjectWithAccess> => {
      const project = await api.get<Project>(projectApi(fullPath), signal);
      let access: number;
      try {
        access = await accessLevel(project, user, signal);
      } catch (err) {
        if (err instanceof ApiError && err.status === 403) access = ACCESS.guest;
        else throw err;
      }
      return { project, access: user.is_admin ? Math.max(access, ACCESS.owner) : access };
    },
    staleTime: 30_000,
  });
}
