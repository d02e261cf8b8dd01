import type { ServiceHandlers } from "@tocsin/grpc";
import type { authV1 } from "@tocsin/proto";
import { toGroup, toMember, toPage, toProject, toSessionPrincipal, toToken, toUser } from "./mappers.js";
import type { UseCases } from "./use-cases.js";

type Def = typeof authV1.AuthServiceService;
type SessionKeys =
  | "authenticateSession"
  | "createSession"
  | "deleteSession"
  | "updateUser"
  | "changePassword"
  | "blockUser"
  | "unblockUser"
  | "listUsers"
  | "listPersonalAccessTokens"
  | "listProjects"
  | "listGroups"
  | "listGroupMembers";

/** Console sessions, passwords, blocking, and the lists the console shows. */
export function sessionHandlers(u: UseCases): Pick<ServiceHandlers<Def>, SessionKeys> {
  return {
    authenticateSession: async (req) => {
      const s = await u.sessions.authenticate(req.sessionToken);
      return { principal: toSessionPrincipal(s), csrfToken: s.csrfToken, user: toUser(s.user) };
    },
    createSession: async (req) => {
      const s = await u.sessions.signIn(req.login, req.password);
      return { sessionToken: s.token, csrfToken: s.csrfToken, user: toUser(s.user), idleExpiresAt: s.idleExpiresAt };
    },
    deleteSession: async (req) => {
      await u.sessions.signOut(req.sessionToken);
      return {};
    },
    updateUser: async (req, ctx) => ({ user: toUser(await u.users.updateUser(ctx, req.id, req)) }),
    changePassword: async (req, ctx) => {
      await u.users.changePassword(ctx, req.currentPassword, req.password);
      return {};
    },
    blockUser: async (req, ctx) => ({ user: toUser(await u.users.setBlocked(ctx, req.id, true)) }),
    unblockUser: async (req, ctx) => ({ user: toUser(await u.users.setBlocked(ctx, req.id, false)) }),
    listUsers: async (req, ctx) => {
      const { users, total } = await u.users.listUsers(ctx, req.search, toPage(req.page));
      return { users: users.map(toUser), total };
    },
    listPersonalAccessTokens: async (req, ctx) => {
      const now = u.clock.now();
      return { tokens: (await u.tokens.listTokens(ctx, req.userId)).map((t) => toToken(t, now)) };
    },
    listProjects: async (req, ctx) => {
      const { items, total } = await u.listings.listProjects(ctx, { ...req, page: toPage(req.page) });
      return { projects: items.map(toProject), total };
    },
    listGroups: async (req, ctx) => {
      const { items, total } = await u.listings.listGroups(ctx, { ...req, page: toPage(req.page) });
      return { groups: items.map(toGroup), total };
    },
    listGroupMembers: async (req, ctx) => ({
      members: (await u.listings.listGroupMembers(ctx, req.groupIdOrPath)).map(toMember),
    }),
  };
}
