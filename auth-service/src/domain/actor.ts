import { type CallContext, forbidden, unauthenticated } from "@tocsin/core";
import type { AuthStore } from "./ports.js";
import type { UserRecord } from "./types.js";

/** Who acts: a trusted internal caller (no principal) or a user. */
export type Actor = { kind: "internal" } | { kind: "user"; user: UserRecord };

/** Loads the principal's user; an unknown principal is unauthenticated. */
export async function resolveActor(store: AuthStore, ctx: CallContext): Promise<Actor> {
  if (!ctx.principal) return { kind: "internal" };
  const user = await store.getUser(ctx.principal.userId);
  if (!user) throw unauthenticated("TOKEN_INVALID");
  return { kind: "user", user };
}

/** Internal callers and admins may do anything. */
export function isPrivileged(actor: Actor): boolean {
  return actor.kind === "internal" || actor.user.isAdmin;
}

export function isAdminUser(actor: Actor): boolean {
  return actor.kind === "user" && actor.user.isAdmin;
}

/** Admin-only operations: internal callers and admins pass; others get `403 Forbidden`. */
export function requireAdmin(actor: Actor): void {
  if (!isPrivileged(actor)) throw forbidden();
}

/** The user themselves, an admin, or an internal caller. */
export function requireSelfOrAdmin(actor: Actor, userId: number): void {
  if (isPrivileged(actor)) return;
  if (actor.kind === "user" && actor.user.id === userId) return;
  throw forbidden();
}
