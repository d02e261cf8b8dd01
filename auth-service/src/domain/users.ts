import { type CallContext, type Clock, forbidden, invalidArgument, notFound, type Page, pageOffset } from "@tocsin/core";
import type { AccessEvents } from "./access-events.js";
import { isPrivileged, requireAdmin, requireSelfOrAdmin, resolveActor } from "./actor.js";
import { hashPassword, validatePassword } from "./passwords.js";
import type { AuthStore, UserPatch } from "./ports.js";
import type { SessionService } from "./sessions.js";
import type { TokenService } from "./tokens.js";
import type { EmailRecord, UserRecord } from "./types.js";
import { rejectReserved, validateEmail, validateName, validateUsername } from "./validation.js";

export interface CreateUserInput {
  username: string;
  email: string;
  name: string;
  admin: boolean;
  /** Empty = no password. */
  password?: string;
}

export interface UpdateUserInput {
  password?: string;
  name?: string;
  admin?: boolean;
}

const CURRENT_PASSWORD_MESSAGE = "Current password is invalid";

/** Users, their e-mail addresses, passwords and blocking. */
export class UserService {
  constructor(
    private readonly store: AuthStore,
    private readonly clock: Clock,
    private readonly access?: AccessEvents,
    private readonly sessions?: SessionService,
    private readonly tokens?: TokenService,
  ) {}

  /** Admin only. The primary e-mail is confirmed; a personal namespace is created. */
  async createUser(ctx: CallContext, input: CreateUserInput): Promise<UserRecord> {
    requireAdmin(await resolveActor(this.store, ctx));
    const username = rejectReserved("username", validateUsername(input.username));
    const email = validateEmail(input.email);
    const name = validateName(input.name);
    const passwordHash = input.password ? await hashPassword(validatePassword(input.password)) : null;
    return this.store.createUser({ username, email, name, isAdmin: input.admin, createdAt: this.clock.now(), passwordHash });
  }

  /** Admin only. A new password ends every session of the user. */
  async updateUser(ctx: CallContext, id: number, input: UpdateUserInput): Promise<UserRecord> {
    requireAdmin(await resolveActor(this.store, ctx));
    if (!(await this.store.getUser(id))) throw notFound("User");
    const patch: UserPatch = {};
    if (input.name !== undefined) patch.name = validateName(input.name);
    if (input.admin !== undefined) patch.isAdmin = input.admin;
    if (input.password !== undefined) patch.passwordHash = await hashPassword(validatePassword(input.password));
    const updated = await this.store.updateUser(id, patch);
    if (!updated) throw notFound("User");
    if (patch.passwordHash) await this.sessions?.endSessionsOf(id);
    if (patch.isAdmin !== undefined) await this.changedEverywhere();
    return updated;
  }

  /** The caller's own password; a wrong current one counts as a failed sign-in. Ends every session. */
  async changePassword(ctx: CallContext, currentPassword: string, password: string): Promise<void> {
    const actor = await resolveActor(this.store, ctx);
    if (actor.kind !== "user") throw forbidden();
    validatePassword(password);
    const ok = this.sessions ? await this.sessions.checkPassword(actor.user, currentPassword) : false;
    if (!ok) {
      throw invalidArgument("CURRENT_PASSWORD_INVALID", CURRENT_PASSWORD_MESSAGE, { current_password: ["is invalid"] });
    }
    await this.store.updateUser(actor.user.id, { passwordHash: await hashPassword(password) });
    await this.sessions?.endSessionsOf(actor.user.id);
  }

  /** Admin only; idempotent. An admin cannot block itself. */
  async setBlocked(ctx: CallContext, id: number, blocked: boolean): Promise<UserRecord> {
    const actor = await resolveActor(this.store, ctx);
    requireAdmin(actor);
    if (blocked && actor.kind === "user" && actor.user.id === id) throw forbidden();
    if (!(await this.store.getUser(id))) throw notFound("User");
    const updated = await this.store.updateUser(id, { blocked });
    if (!updated) throw notFound("User");
    await this.changedEverywhere();
    return updated;
  }

  /** Admin only: users by id, filtered by a substring of username, name or e-mail. */
  async listUsers(ctx: CallContext, search: string, page: Page): Promise<{ users: UserRecord[]; total: number }> {
    requireAdmin(await resolveActor(this.store, ctx));
    const needle = search.trim().toLowerCase();
    const all = (await this.store.listUsers()).filter(
      (u) => !needle || [u.username, u.name, u.email].some((v) => v.toLowerCase().includes(needle)),
    );
    const start = pageOffset(page);
    return { users: all.slice(start, start + page.perPage), total: all.length };
  }

  async getUser(ctx: CallContext, id: number): Promise<UserRecord> {
    await resolveActor(this.store, ctx);
    const user = await this.store.getUser(id);
    if (!user) throw notFound("User");
    return user;
  }

  async batchGetUsers(ctx: CallContext, ids: number[]): Promise<UserRecord[]> {
    await resolveActor(this.store, ctx);
    return this.store.getUsers([...new Set(ids)]);
  }

  /**
   * Adds a secondary address: confirmed only when an admin (or an internal caller) asks to skip
   * confirmation. Users may add to themselves; only admins to others.
   */
  async addEmail(ctx: CallContext, userId: number, email: string, skipConfirmation: boolean): Promise<EmailRecord> {
    const actor = await resolveActor(this.store, ctx);
    requireSelfOrAdmin(actor, userId);
    const address = validateEmail(email);
    if (!(await this.store.getUser(userId))) throw notFound("User");
    const confirmed = skipConfirmation && isPrivileged(actor);
    const added = await this.store.addEmail({
      userId,
      email: address,
      confirmedAt: confirmed ? this.clock.now() : null,
      primary: false,
    });
    await this.access?.userChanged(userId);
    return added;
  }

  async listEmails(ctx: CallContext, userId: number): Promise<EmailRecord[]> {
    requireSelfOrAdmin(await resolveActor(this.store, ctx), userId);
    if (!(await this.store.getUser(userId))) throw notFound("User");
    return this.store.listEmails(userId);
  }

  /** Blocking and admin changes alter every cached principal of the user: drop them all. */
  private async changedEverywhere(): Promise<void> {
    this.tokens?.clearCache();
    await this.access?.everything();
  }
}
