import type { authV1 } from "@tocsin/proto";
import { isoTime } from "./time.js";

/** GitLab's user entity, the subset Tocsin keeps. */
export function toUserJson(user: authV1.User) {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.blocked ? "blocked" : "active",
    email: user.email,
    is_admin: user.isAdmin,
    namespace_id: user.namespaceId,
    created_at: isoTime(user.createdAt),
  };
}

export function toEmailJson(email: authV1.Email) {
  return { id: email.id, email: email.email, confirmed_at: isoTime(email.confirmedAt) };
}

/** A personal access token; `token` only in the answer that created it. */
export function toTokenJson(token: authV1.PersonalAccessToken) {
  return {
    id: token.id,
    name: token.name,
    scopes: token.scopes,
    expires_at: token.expiresAt || null,
    active: token.active,
    revoked: token.revoked,
    created_at: isoTime(token.createdAt),
    user_id: token.userId,
    ...(token.token ? { token: token.token } : {}),
  };
}
