import { type CallContext, type Page, pageOffset } from "@tocsin/core";
import { effectiveGroupLevel, effectiveProjectLevel, groupChain, topLevelId } from "./access.js";
import { type Actor, isAdminUser, resolveActor } from "./actor.js";
import type { Directory, GroupView, ProjectView } from "./directory.js";
import type { AuthStore } from "./ports.js";
import type { MemberView } from "./projects.js";
import { ACCESS, type MembershipRecord, type NamespaceRecord, type PlanName } from "./types.js";

export interface ListQuery {
  /** Only what the caller is a member of (admins otherwise see everything). */
  membership: boolean;
  /** Case-insensitive substring; empty = all. */
  search: string;
  page: Page;
}

export interface Listed<T> {
  items: T[];
  /** Matches over every page. */
  total: number;
}

function paged<T>(all: T[], page: Page): Listed<T> {
  const start = pageOffset(page);
  return { items: all.slice(start, start + page.perPage), total: all.length };
}

const matches = (needle: string, ...values: string[]) => !needle || values.some((v) => v.toLowerCase().includes(needle));

/** The lists of the console: projects and groups the caller can see, and a group's members. */
export class ListingService {
  constructor(
    private readonly store: AuthStore,
    private readonly directory: Directory,
  ) {}

  /** Newest first, each with the caller's effective level and the project's tier. */
  async listProjects(ctx: CallContext, q: ListQuery): Promise<Listed<ProjectView>> {
    const actor = await resolveActor(this.store, ctx);
    const everything = actor.kind === "internal" || (isAdminUser(actor) && !q.membership);
    const memberships = actor.kind === "user" ? await this.store.listMembershipsOfUser(actor.user.id) : [];
    const scope = everything ? "all" : await this.memberScope(actor, memberships);
    const needle = q.search.trim().toLowerCase();
    const projects = (await this.store.listProjects(scope))
      .filter((p) => matches(needle, p.name, p.pathWithNamespace))
      .sort((a, b) => b.id - a.id);
    const page = paged(projects, q.page);
    const namespaces = await this.namespacesById(page.items.map((p) => p.namespaceId));
    const plans = await this.topLevelPlans([...namespaces.values()]);
    const items: ProjectView[] = [];
    for (const project of page.items) {
      const namespace = namespaces.get(project.namespaceId);
      if (!namespace) continue;
      const level =
        actor.kind === "user" && !actor.user.isAdmin
          ? effectiveProjectLevel(project, namespace, actor.user.id, memberships)
          : ACCESS.OWNER;
      const group = namespace.kind === "group";
      items.push({
        project,
        namespace,
        tier: group ? (plans.get(topLevelId(namespace)) ?? "free") : "free",
        ancestorGroupIds: group ? [namespace.id, ...[...namespace.ancestorIds].reverse()] : [],
        accessLevel: level,
      });
    }
    return { items, total: page.total };
  }

  /** By full path, each with the caller's effective level and the top-level plan. */
  async listGroups(ctx: CallContext, q: ListQuery): Promise<Listed<GroupView>> {
    const actor = await resolveActor(this.store, ctx);
    const everything = actor.kind === "internal" || (isAdminUser(actor) && !q.membership);
    const memberships = actor.kind === "user" ? await this.store.listMembershipsOfUser(actor.user.id) : [];
    const groups = everything ? await this.store.listGroups() : await this.memberGroups(memberships);
    const needle = q.search.trim().toLowerCase();
    const visible = groups
      .filter((g) => matches(needle, g.name, g.fullPath))
      .sort((a, b) => a.fullPath.toLowerCase().localeCompare(b.fullPath.toLowerCase()));
    const page = paged(visible, q.page);
    const plans = await this.topLevelPlans(page.items);
    const items = page.items.map((group) => ({
      group,
      plan: plans.get(topLevelId(group)) ?? "free",
      accessLevel: actor.kind === "user" && !actor.user.isAdmin ? effectiveGroupLevel(group, memberships) : ACCESS.OWNER,
    }));
    return { items, total: page.total };
  }

  /** Every member of a visible group with its effective level (inherited from ancestors too). */
  async listGroupMembers(ctx: CallContext, groupIdOrPath: string): Promise<MemberView[]> {
    const view = await this.directory.visibleGroup(await resolveActor(this.store, ctx), groupIdOrPath);
    const sources = groupChain(view.group).map((id) => ({ type: "group" as const, id }));
    const levels = new Map<number, number>();
    for (const m of await this.store.listMembershipsOfSources(sources)) {
      levels.set(m.userId, Math.max(levels.get(m.userId) ?? 0, m.accessLevel));
    }
    const users = await this.store.getUsers([...levels.keys()]);
    return users.sort((a, b) => a.id - b.id).map((user) => ({ user, accessLevel: levels.get(user.id) ?? ACCESS.NONE }));
  }

  private async memberScope(actor: Actor, memberships: MembershipRecord[]) {
    const groups = await this.memberGroups(memberships);
    const own = actor.kind === "user" ? [actor.user.namespaceId] : [];
    return {
      ids: memberships.filter((m) => m.sourceType === "project").map((m) => m.sourceId),
      namespaceIds: [...own, ...groups.map((g) => g.id)],
    };
  }

  /** Groups with a direct membership and all their descendants. */
  private async memberGroups(memberships: MembershipRecord[]): Promise<NamespaceRecord[]> {
    const directIds = memberships.filter((m) => m.sourceType === "group").map((m) => m.sourceId);
    if (directIds.length === 0) return [];
    const groups = new Map<number, NamespaceRecord>();
    for (const g of await this.store.getNamespaces(directIds)) groups.set(g.id, g);
    for (const g of await this.store.listDescendantGroups(directIds)) groups.set(g.id, g);
    return [...groups.values()];
  }

  private async namespacesById(ids: number[]): Promise<Map<number, NamespaceRecord>> {
    return new Map((await this.store.getNamespaces([...new Set(ids)])).map((n) => [n.id, n] as const));
  }

  private async topLevelPlans(namespaces: NamespaceRecord[]): Promise<Map<number, PlanName>> {
    const topIds = [...new Set(namespaces.filter((n) => n.kind === "group").map(topLevelId))];
    return new Map((await this.store.getNamespaces(topIds)).map((t) => [t.id, t.plan] as const));
  }
}
