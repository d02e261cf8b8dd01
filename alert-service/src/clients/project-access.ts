import { type CallContext, type Clock, forbidden, internalContext, systemClock, TtlCache } from "@tocsin/core";
import type { AuthClient } from "@tocsin/grpc";
import { type authV1, planName } from "@tocsin/proto";
import type { ProjectAccess } from "../domain/ports.js";
import { ACCESS, type ProjectRef } from "../domain/types.js";

/** How long `byId` answers are reused (the ingest hot path asks for every alert). */
const PROJECT_CACHE_TTL_MS = 5_000;

function toRef(project: authV1.Project, accessLevel: number): ProjectRef {
  return { id: project.id, fullPath: project.pathWithNamespace, tier: planName(project.tier), accessLevel };
}

/**
 * ProjectAccess over auth-service's GetProject. `require` asks as the caller (auth answers NOT_FOUND
 * `404 Project Not Found` for projects the caller cannot see, and the caller's access level);
 * internal calls (no principal) count as Owner.
 */
export function createProjectAccess(auth: AuthClient, clock: Clock = systemClock): ProjectAccess {
  const cache = new TtlCache<number, ProjectRef>({ ttlMs: PROJECT_CACHE_TTL_MS, now: () => clock.now().getTime() });
  return {
    async require(idOrPath: string, minLevel: number, ctx: CallContext) {
      const { project } = await auth.getProject({ idOrPath }, ctx);
      if (!project) throw new Error("auth-service answered GetProject without a project");
      const level = ctx.principal ? project.accessLevel : ACCESS.owner;
      if (level < minLevel) throw forbidden();
      return toRef(project, level);
    },
    async byId(projectId: number, ctx: CallContext) {
      const hit = cache.get(projectId);
      if (hit) return hit;
      const { project } = await auth.getProject({ idOrPath: String(projectId) }, internalContext(ctx));
      if (!project) throw new Error("auth-service answered GetProject without a project");
      const ref = toRef(project, ACCESS.owner);
      cache.set(projectId, ref);
      return ref;
    },
  };
}
