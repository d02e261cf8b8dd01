import type { ServiceHandlers } from "@tocsin/grpc";
import type { authV1 } from "@tocsin/proto";
import { toSessionPrincipal, toUser } from "./mappers.js";
import type { UseCases } from "./use-cases.js";

type Def = typeof authV1.AuthServiceService;
type SessionKeys = "authenticateSession" | "createSession" | "deleteSession";

/** Console sessions: sign in, authenticate a session cookie, sign out. */
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
  };
}
