import type { ServiceHandlers } from "@tocsin/grpc";
import type { authV1 } from "@tocsin/proto";
import { toPage, toToken, toUser } from "./mappers.js";
import type { UseCases } from "./use-cases.js";

type Def = typeof authV1.AuthServiceService;
type AccountKeys = "updateUser" | "changePassword" | "blockUser" | "unblockUser" | "listUsers" | "listPersonalAccessTokens";

/** Users' accounts as the console manages them: profile, password, blocking, the user list, a user's tokens. */
export function accountHandlers(u: UseCases): Pick<ServiceHandlers<Def>, AccountKeys> {
  return {
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
  };
}
