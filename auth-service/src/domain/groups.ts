import { type CallContext, type Clock, forbidden, invalidArgument, notFound } from "@tocsin/core";
import { effectiveGroupLevel, topLevelId } from "./access.js";
import type { AccessEvents } from "./access-events.js";
import { isPrivileged, requireAdmin, requireSelfOrAdmin, resolveActor } from "./actor.js";
import type { Directory, GroupView } from "./directory.js";
import { pathTaken } from "./errors.js";
import type { KeyEvents } from "./key-events.js";
import type { AuthStore } from "./ports.js";
import { ACCESS, type NamespaceRecord, type PlanName, type UserRecord } from "./types.js";
import { rejectReserved, validateLevel, validateName, validatePath, valueInvalid } from "./validation.js";

export interface CreateGroupInput {
  name: string;
  path: string;
  /** 0 for a top-level group. */
  parentId: number;
  /** null = not given (free). */
  plan: PlanName | null;
}

const PLAN_ON_SUBGROUP_MESSAGE = "400 Bad request - only top-level groups carry a plan";

/** Groups, their plans and their memberships. */
export class GroupService {
  constructor(
    private readonly store: AuthStore,
    private readonly directory: Directory,
    private readonly keys: KeyEvents,
    private readonly clock: Clock,
    private readonly access?: AccessEvents,
  ) {}

  /** Any user; admins only with a plan; subgroups need Maintainer+ on the parent. */
  async createGroup(ctx: CallContext, input: CreateGroupInput): Promise<GroupView> {
    const actor = await resolveActor(this.store, ctx);
    const name = validateName(input.name);
    const path = validatePath(input.path);
    if (!input.parentId) rejectReserved("path", path);
    if (input.plan !== null && !isPrivileged(actor)) throw forbidden();
    let parent: NamespaceRecord | null = null;
    if (input.parentId) {
      const view = await this.directory.visibleGroup(actor, String(input.parentId));
      if (view.accessLevel < ACCESS.MAINTAINER) throw forbidden();
      if (input.plan !== null) throw invalidArgument("PLAN_NOT_TOP_LEVEL", PLAN_ON_SUBGROUP_MESSAGE);
      parent = view.group;
    }
    const fullPath = parent ? `${parent.fullPath}/${path}` : path;
    if (await this.store.findProjectByPath(fullPath)) throw pathTaken();
    const group = await this.store.insertNamespace({
      kind: "group",
      name,
      path,
      fullPath,
      parentId: parent?.id ?? 0,
      ancestorIds: parent ? [...parent.ancestorIds, parent.id] : [],
      plan: input.plan ?? "free",
      ownerId: 0,
      createdAt: this.clock.now(),
    });
    if (actor.kind === "user") {
      await this.store.upsertMembership({
        sourceType: "group",
        sourceId: group.id,
        userId: actor.user.id,
        accessLevel: ACCESS.OWNER,
      });
    }
    // A subgroup is inherited by every member of its ancestors; a top-level group only shows to its creator.
    if (parent) await this.access?.everything();
    else if (actor.kind === "user") await this.access?.userChanged(actor.user.id);
    return { group, plan: await this.directory.planOf(group), accessLevel: ACCESS.OWNER };
  }

  async getGroup(ctx: CallContext, idOrPath: string): Promise<GroupView> {
    return this.directory.visibleGroup(await resolveActor(this.store, ctx), idOrPath);
  }

  /** Admin only; top-level groups only. Every cached webhook answer may now be stale. */
  async setPlan(ctx: CallContext, namespaceId: number, plan: PlanName | null): Promise<GroupView> {
    requireAdmin(await resolveActor(this.store, ctx));
    if (plan === null) throw valueInvalid("plan");
    const ns = await this.store.getNamespace(namespaceId);
    if (!ns) throw notFound("Namespace");
    if (ns.kind !== "group" || ns.parentId !== 0) throw invalidArgument("PLAN_NOT_TOP_LEVEL", PLAN_ON_SUBGROUP_MESSAGE);
    const updated = await this.store.setNamespacePlan(ns.id, plan);
    if (!updated) throw notFound("Namespace");
    await Promise.all([this.keys.everything(), this.access?.everything()]);
    return { group: updated, plan: updated.plan, accessLevel: ACCESS.OWNER };
  }

  /** Owner of the group (or admin). Returns the member's effective level afterwards. */
  async addMember(
    ctx: CallContext,
    groupIdOrPath: string,
    userId: number,
    level: number,
  ): Promise<{ user: UserRecord; accessLevel: number }> {
    validateLevel(level);
    const view = await this.directory.visibleGroup(await resolveActor(this.store, ctx), groupIdOrPath);
    if (view.accessLevel < ACCESS.OWNER) throw forbidden();
    const user = await this.store.getUser(userId);
    if (!user) throw notFound("User");
    await this.store.upsertMembership({ sourceType: "group", sourceId: view.group.id, userId, accessLevel: level });
    await this.access?.userChanged(userId);
    const memberships = await this.store.listMembershipsOfUser(userId);
    return { user, accessLevel: effectiveGroupLevel(view.group, memberships) };
  }

  /** Groups where the user is a member, directly or through an ancestor; with their plans. */
  async listUserGroups(ctx: CallContext, userId: number): Promise<GroupView[]> {
    requireSelfOrAdmin(await resolveActor(this.store, ctx), userId);
    if (!(await this.store.getUser(userId))) throw notFound("User");
    const memberships = await this.store.listMembershipsOfUser(userId);
    const directIds = memberships.filter((m) => m.sourceType === "group").map((m) => m.sourceId);
    if (directIds.length === 0) return [];
    const groups = new Map<number, NamespaceRecord>();
    for (const g of await this.store.getNamespaces(directIds)) groups.set(g.id, g);
    for (const g of await this.store.listDescendantGroups(directIds)) groups.set(g.id, g);
    const topIds = [...new Set([...groups.values()].map(topLevelId))];
    const plans = new Map((await this.store.getNamespaces(topIds)).map((t) => [t.id, t.plan] as const));
    return [...groups.values()]
      .sort((a, b) => a.id - b.id)
      .map((group) => ({
        group,
        plan: plans.get(topLevelId(group)) ?? "free",
        accessLevel: effectiveGroupLevel(group, memberships),
      }));
  }
}
