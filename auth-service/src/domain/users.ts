import { type CallContext, type Clock, notFound } from "@tocsin/core";
import type { AccessEventHub } from "./access-events.js";
import { isPrivileged, requireAdmin, requireSelfOrAdmin, resolveActor } from "./actor.js";
import type { AuthStore } from "./store.js";
import type { EmailRecord, UserRecord } from "./types.js";
import { validateEmail, validateName, validateUsername } from "./validation.js";

export interface CreateUserInput {
  username: string;
  email: string;
  name: string;
  admin: boolean;
}

/** Users and their e-mail addresses. */
export class UserService {
  constructor(
    private readonly store: AuthStore,
    private readonly clock: Clock,
    private readonly access?: AccessEventHub,
  ) {}

  /** Admin only. The primary e-mail is confirmed; a personal namespace is created. */
  async createUser(ctx: CallContext, input: CreateUserInput): Promise<UserRecord> {
    requireAdmin(await resolveActor(this.store, ctx));
    return this.store.createUser({
      username: validateUsername(input.username),
      email: validateEmail(input.email),
      name: validateName(input.name),
      isAdmin: input.admin,
      createdAt: this.clock.now(),
    });
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
    this.access?.userChanged(userId);
    return added;
  }

  async listEmails(ctx: CallContext, userId: number): Promise<EmailRecord[]> {
    requireSelfOrAdmin(await resolveActor(this.store, ctx), userId);
    if (!(await this.store.getUser(userId))) throw notFound("User");
    return this.store.listEmails(userId);
  }
}
