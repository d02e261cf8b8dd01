import { internalContext } from "@tocsin/core";
import type { AuthClient } from "@tocsin/grpc";
import type { ProjectMembers } from "../domain/paging/ports.js";

/** ProjectMembers over auth-service's ListProjectMembers (direct and inherited members), read fresh. */
export function createProjectMembers(auth: AuthClient): ProjectMembers {
  return {
    async members(projectId, ctx) {
      const { members } = await auth.listProjectMembers({ projectId }, internalContext(ctx));
      return members.flatMap(({ user }) =>
        user ? [{ id: user.id, username: user.username, email: user.email, blocked: user.blocked === true }] : [],
      );
    },
  };
}
