import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";

/**
 * What the alert integration suites over the public REST API share
 * (tests/alert-integrations-http.test.ts and tests/alert-integrations-mapping-prometheus-opsgenie.test.ts):
 * the whole system with Mia, Maintainer of a Free project and of a Premium one (in a subgroup of a
 * Premium group), a Developer of both, a stranger to both, and a project's alert_management path.
 */

export const base = (p: SeededProject | string) =>
  `/api/v4/projects/${encodeURIComponent(typeof p === "string" ? p : p.path_with_namespace)}/alert_management`;

export interface IntegrationsSystem {
  sys: RunningSystem;
  maintainer: SeededUser;
  developer: SeededUser;
  stranger: SeededUser;
  free: SeededProject;
  premium: SeededProject;
}

/** The whole system, seeded: free-org/app (Free) and paid-org/team/svc (Premium). Stopped again if seeding fails. */
export async function startIntegrationsSystem(): Promise<IntegrationsSystem> {
  const sys = await startSystem();
  try {
    const maintainer = await seedUser(sys.url, sys.adminToken, { username: "mia" });
    const developer = await seedUser(sys.url, sys.adminToken, { username: "dev" });
    const stranger = await seedUser(sys.url, sys.adminToken, { username: "stranger" });
    const freeGroup = await seedGroup(sys.url, maintainer.token, { path: "free-org" });
    const premiumGroup = await seedGroup(sys.url, sys.adminToken, { path: "paid-org", plan: "premium" });
    await addMember(sys.url, sys.adminToken, "groups", premiumGroup.id, maintainer.user.id, 50);
    const free = await seedProject(sys.url, maintainer.token, { path: "app", namespaceId: freeGroup.id });
    const sub = await seedGroup(sys.url, maintainer.token, { path: "team", parentId: premiumGroup.id });
    const premium = await seedProject(sys.url, maintainer.token, { path: "svc", namespaceId: sub.id });
    for (const p of [free, premium]) await addMember(sys.url, maintainer.token, "projects", p.id, developer.user.id, 30);
    return { sys, maintainer, developer, stranger, free, premium };
  } catch (err) {
    await sys.stop();
    throw err;
  }
}
