import type { ServiceHandlers } from "@tocsin/grpc";
import type { authV1 } from "@tocsin/proto";
import { planFromProto, toEmail, toGroup, toMember, toPrincipal, toToken, toUser } from "./mappers.js";
import type { UseCases } from "./use-cases.js";

type Def = typeof authV1.AuthServiceService;
type IdentityKeys =
  | "authenticateToken"
  | "createUser"
  | "getUser"
  | "batchGetUsers"
  | "addEmail"
  | "listEmails"
  | "createPersonalAccessToken"
  | "revokePersonalAccessToken"
  | "createGroup"
  | "getGroup"
  | "setNamespacePlan"
  | "addGroupMember"
  | "listUserGroups";

/** Users, e-mails, tokens and groups. */
export function identityHandlers(u: UseCases): Pick<ServiceHandlers<Def>, IdentityKeys> {
  return {
    authenticateToken: async (req) => ({ principal: toPrincipal(await u.tokens.authenticate(req.token)) }),
    createUser: async (req, ctx) => ({ user: toUser(await u.users.createUser(ctx, req)) }),
    getUser: async (req, ctx) => ({ user: toUser(await u.users.getUser(ctx, req.id)) }),
    batchGetUsers: async (req, ctx) => ({ users: (await u.users.batchGetUsers(ctx, req.ids)).map(toUser) }),
    addEmail: async (req, ctx) => ({
      email: toEmail(await u.users.addEmail(ctx, req.userId, req.email, req.skipConfirmation)),
    }),
    listEmails: async (req, ctx) => ({ emails: (await u.users.listEmails(ctx, req.userId)).map(toEmail) }),
    createPersonalAccessToken: async (req, ctx) => {
      const created = await u.tokens.createToken(ctx, req);
      return { token: toToken(created.record, u.clock.now(), created.token) };
    },
    revokePersonalAccessToken: async (req, ctx) => {
      await u.tokens.revokeToken(ctx, req.id);
      return {};
    },
    createGroup: async (req, ctx) => ({
      group: toGroup(await u.groups.createGroup(ctx, { ...req, plan: planFromProto(req.plan) })),
    }),
    getGroup: async (req, ctx) => ({ group: toGroup(await u.groups.getGroup(ctx, req.idOrPath)) }),
    setNamespacePlan: async (req, ctx) => ({
      group: toGroup(await u.groups.setPlan(ctx, req.namespaceId, planFromProto(req.plan))),
    }),
    addGroupMember: async (req, ctx) => ({
      member: toMember(await u.groups.addMember(ctx, req.groupIdOrPath, req.userId, req.accessLevel)),
    }),
    listUserGroups: async (req, ctx) => ({ groups: (await u.groups.listUserGroups(ctx, req.userId)).map(toGroup) }),
  };
}
