import { inject } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";

/** The storage modes every on-call suite runs on: the embedded default and MongoDB (FerretDB). */
export function oncallBackends(suite: string): Array<[string, Record<string, string>]> {
  const mongoUrl = inject("mongoUrl");
  const backends: Array<[string, Record<string, string>]> = [["embedded store", {}]];
  if (mongoUrl) backends.push(["MongoDB", { MONGO_URL: mongoUrl }]);
  else console.warn(`[${suite}] no MongoDB-protocol server: the MongoDB variant is SKIPPED`);
  return backends;
}

export interface OncallWorld {
  sys: RunningSystem;
  /** Project `ops/pager` (Premium): olga Owner (group), mia Maintainer, dev Developer, rep Reporter, bob and cat Developers. */
  project: number;
  /** Project `solo/tool` (Free): mia is its Owner. */
  freeProject: number;
  users: Record<"olga" | "mia" | "dev" | "rep" | "bob" | "cat" | "nobody", SeededUser>;
  as(user: SeededUser): ReturnType<typeof api>;
  base(project?: number): string;
}

/** Boots the system and seeds the on-call suites' users and projects over the public API. */
export async function startOncallWorld(env: Record<string, string>): Promise<OncallWorld> {
  const sys = await startSystem({ env });
  const seed = (username: string) => seedUser(sys.url, sys.adminToken, { username, name: username.toUpperCase() });
  const users = {
    olga: await seed("olga"),
    mia: await seed("mia"),
    dev: await seed("dev"),
    rep: await seed("rep"),
    bob: await seed("bob"),
    cat: await seed("cat"),
    nobody: await seed("nobody"),
  };
  const ops = await seedGroup(sys.url, sys.adminToken, { path: "ops", plan: "premium" });
  await addMember(sys.url, sys.adminToken, "groups", ops.id, users.olga.user.id, 50);
  const project = (await seedProject(sys.url, users.olga.token, { path: "pager", namespaceId: ops.id })).id;
  for (const [name, level] of [
    ["mia", 40],
    ["dev", 30],
    ["rep", 20],
    ["bob", 30],
    ["cat", 30],
  ] as const) {
    await addMember(sys.url, users.olga.token, "projects", project, users[name].user.id, level);
  }
  const solo = await seedGroup(sys.url, users.mia.token, { path: "solo" });
  const freeProject = (await seedProject(sys.url, users.mia.token, { path: "tool", namespaceId: solo.id })).id;
  return {
    sys,
    project,
    freeProject,
    users,
    as: (user) => api(sys.url, user.token),
    base: (id = project) => `/api/v4/projects/${id}/incident_management`,
  };
}

/** A user as section 11's answers show it. */
export const userJson = (u: SeededUser, state = "active") => ({
  id: u.user.id,
  username: u.user.username,
  name: u.user.name,
  state,
});
