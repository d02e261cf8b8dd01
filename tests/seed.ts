import { api } from "./api.js";

/** Helpers that build identities through the public REST API (as an admin would). */

export interface SeededUser {
  user: { id: number; username: string; name: string; email: string; is_admin: boolean; namespace_id?: number };
  /** A personal access token with scope `api`. */
  token: string;
}

function expectStatus(res: { status: number; text: string }, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
}

/** Creates a user (POST /users) and an `api` token for it (POST /users/:id/personal_access_tokens). */
export async function seedUser(
  url: string,
  adminToken: string,
  options: { username: string; email?: string; admin?: boolean; name?: string },
): Promise<SeededUser> {
  const admin = api(url, adminToken);
  const created = await admin.post("/api/v4/users", {
    username: options.username,
    email: options.email ?? `${options.username}@example.com`,
    name: options.name ?? options.username,
    admin: options.admin ?? false,
  });
  expectStatus(created, 201, `create user ${options.username}`);
  const token = await admin.post(`/api/v4/users/${created.body.id}/personal_access_tokens`, { name: "seed", scopes: ["api"] });
  expectStatus(token, 201, `create token for ${options.username}`);
  return { user: created.body, token: token.body.token as string };
}

export interface SeededGroup {
  id: number;
  name: string;
  path: string;
  full_path: string;
  parent_id: number | null;
  plan: "free" | "premium" | "ultimate";
}

/** Creates a group (a subgroup with `parentId`); `plan` needs an admin token. The caller becomes Owner. */
export async function seedGroup(
  url: string,
  token: string,
  options: { path: string; name?: string; parentId?: number; plan?: "free" | "premium" | "ultimate" },
): Promise<SeededGroup> {
  const res = await api(url, token).post("/api/v4/groups", {
    name: options.name ?? options.path,
    path: options.path,
    ...(options.parentId ? { parent_id: options.parentId } : {}),
    ...(options.plan ? { plan: options.plan } : {}),
  });
  expectStatus(res, 201, `create group ${options.path}`);
  return res.body as SeededGroup;
}

export interface SeededProject {
  id: number;
  name: string;
  path: string;
  path_with_namespace: string;
  namespace: { id: number; full_path: string; kind: string };
  tier?: string;
}

/** Creates a project in a group (`namespaceId`) or in the caller's personal namespace. */
export async function seedProject(
  url: string,
  token: string,
  options: { path: string; name?: string; namespaceId?: number },
): Promise<SeededProject> {
  const res = await api(url, token).post("/api/v4/projects", {
    name: options.name ?? options.path,
    path: options.path,
    ...(options.namespaceId ? { namespace_id: options.namespaceId } : {}),
  });
  expectStatus(res, 201, `create project ${options.path}`);
  return res.body as SeededProject;
}

/** Adds (or updates) a direct membership: 10 Guest, 20 Reporter, 30 Developer, 40 Maintainer, 50 Owner. */
export async function addMember(
  url: string,
  token: string,
  kind: "projects" | "groups",
  id: number | string,
  userId: number,
  level: 10 | 20 | 30 | 40 | 50,
): Promise<{ id: number; username: string; access_level: number }> {
  const res = await api(url, token).post(`/api/v4/${kind}/${encodeURIComponent(String(id))}/members`, {
    user_id: userId,
    access_level: level,
  });
  expectStatus(res, 201, `add member ${userId} to ${kind}/${id}`);
  return res.body;
}
