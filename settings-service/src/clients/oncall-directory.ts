import { actingFor, internalContext } from "@tocsin/core";
import type { AuthClient } from "@tocsin/grpc";
import { type authV1, planName } from "@tocsin/proto";
import type { OncallDirectory, OncallUser } from "../domain/oncall/ports.js";

const toUser = (u: authV1.User): OncallUser => ({ id: u.id, username: u.username, name: u.name, blocked: u.blocked ?? false });

/**
 * The on-call use-cases' view of auth-service: the project with the caller's access level (the
 * viewer is the acting user), and members and users by internal calls. Read fresh on every call,
 * so a member who leaves or is blocked is skipped at once. Auth's errors pass through unchanged.
 */
export function createOncallDirectory(auth: AuthClient): OncallDirectory {
  return {
    async getProject(idOrPath, viewerId, ctx) {
      const { project } = await auth.getProject({ idOrPath }, actingFor(ctx, viewerId));
      if (!project) throw new Error("auth-service answered without a project");
      return { id: project.id, tier: planName(project.tier), accessLevel: project.accessLevel };
    },
    async listMembers(projectId, ctx) {
      const { members } = await auth.listProjectMembers({ projectId }, internalContext(ctx));
      return members.flatMap((m) => (m.user ? [{ ...toUser(m.user), accessLevel: m.accessLevel }] : []));
    },
    async getUsers(ids, ctx) {
      return (await auth.batchGetUsers({ ids: [...ids] }, internalContext(ctx))).users.map(toUser);
    },
  };
}
