import { type CallContext, forbidden, notFound } from "@tocsin/core";
import { fieldError, premiumOnly } from "./errors.js";
import type { OncallDirectory, OncallMember, OncallProject } from "./ports.js";

/** GitLab access levels. */
const GUEST = 10;
const DEVELOPER = 30;
const MAINTAINER = 40;

export type Need = "read" | "write";

/**
 * The project as the caller may use it here: non-members (and projects they cannot see) → 404,
 * a Free project → 403 with the tier message (reads included), below Developer (read) or
 * Maintainer (write) → 403. Internal calls (no principal) pass.
 */
export async function projectFor(
  directory: OncallDirectory,
  idOrPath: string,
  need: Need,
  ctx: CallContext,
): Promise<OncallProject> {
  const viewer = ctx.principal?.userId;
  const project = await directory.getProject(idOrPath, viewer, ctx);
  if (viewer !== undefined && project.accessLevel < GUEST) throw notFound("Project");
  if (project.tier === "free") throw premiumOnly();
  if (viewer !== undefined && project.accessLevel < (need === "write" ? MAINTAINER : DEVELOPER)) throw forbidden();
  return project;
}

/** Calls by project id for paging come from other services, never from a user. */
export function internalOnly(ctx: CallContext): void {
  if (ctx.principal) throw forbidden();
}

type UserState = "active" | "blocked" | "removed";

/** A user as the API shows it; `state` says why a participant would be skipped. */
export interface UserView {
  id: number;
  username: string;
  name: string;
  state: UserState;
}

/** Members by username, for turning request usernames into user ids. */
export async function memberIndex(directory: OncallDirectory, projectId: number, ctx: CallContext) {
  const members = await directory.listMembers(projectId, ctx);
  return new Map<string, OncallMember>(members.map((m) => [m.username.toLowerCase(), m]));
}

/** Usernames → user ids; each must be a member of the project (400 naming `field` otherwise). */
export function memberIds(index: Map<string, OncallMember>, usernames: readonly string[], field: string): number[] {
  return usernames.map((username) => {
    const member = index.get(username.toLowerCase());
    if (!member) throw fieldError(field, `${username} is not a member of the project`);
    return member.id;
  });
}

/**
 * Views of the given user ids: members are `active` or `blocked`; anyone else (left the project)
 * is `removed` — looked up once, shown by username, never paged.
 */
export async function userViews(
  directory: OncallDirectory,
  projectId: number,
  ids: Iterable<number>,
  ctx: CallContext,
): Promise<Map<number, UserView>> {
  const wanted = new Set(ids);
  const views = new Map<number, UserView>();
  if (wanted.size === 0) return views;
  for (const m of await directory.listMembers(projectId, ctx)) {
    if (wanted.has(m.id))
      views.set(m.id, { id: m.id, username: m.username, name: m.name, state: m.blocked ? "blocked" : "active" });
  }
  const others = [...wanted].filter((id) => !views.has(id));
  if (others.length > 0) {
    for (const u of await directory.getUsers(others, ctx)) {
      views.set(u.id, { id: u.id, username: u.username, name: u.name, state: "removed" });
    }
  }
  for (const id of others) if (!views.has(id)) views.set(id, { id, username: "", name: "", state: "removed" });
  return views;
}
