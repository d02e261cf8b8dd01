import { actingFor, internalContext } from "@tocsin/core";
import type { AuthClient } from "@tocsin/grpc";
import { type authV1, planName } from "@tocsin/proto";
import type { Directory, GroupInfo, ProjectInfo } from "../domain/ports.js";

function toGroup(group: authV1.Group | undefined): GroupInfo {
  if (!group) throw new Error("auth-service answered without a group");
  return { id: group.id, plan: planName(group.plan) };
}

/**
 * Directory over auth-service's gRPC API: the viewer (if any) is the acting user, and the caller's
 * request id and deadline travel with every call. Auth's errors (NOT_FOUND `404 Project Not Found`,
 * UNAVAILABLE, ...) pass through unchanged.
 */
export function createAuthDirectory(auth: AuthClient): Directory {
  return {
    async getProject(idOrPath, viewerId, ctx): Promise<ProjectInfo> {
      const { project } = await auth.getProject({ idOrPath }, actingFor(ctx, viewerId));
      if (!project) throw new Error("auth-service answered without a project");
      return { id: project.id, ancestorGroupIds: project.ancestorGroupIds, tier: planName(project.tier) };
    },
    async getGroup(idOrPath, viewerId, ctx) {
      return toGroup((await auth.getGroup({ idOrPath }, actingFor(ctx, viewerId))).group);
    },
    async listEmails(userId, ctx) {
      const { emails } = await auth.listEmails({ userId }, internalContext(ctx));
      return emails.map((e) => ({ email: e.email, confirmed: e.confirmedAt !== undefined, primary: e.primary }));
    },
    async listProjectMembers(projectId, ctx) {
      const { members } = await auth.listProjectMembers({ projectId }, internalContext(ctx));
      return members.flatMap((m) =>
        m.user ? [{ userId: m.user.id, email: m.user.email, accessLevel: m.accessLevel, blocked: m.user.blocked ?? false }] : [],
      );
    },
    async listUserGroups(userId, ctx) {
      return (await auth.listUserGroups({ userId }, internalContext(ctx))).groups.map((g) => toGroup(g));
    },
  };
}
