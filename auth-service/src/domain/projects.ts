import { type CallContext, type Clock, forbidden, notFound, paramMissing } from "@tocsin/core";
import { effectiveProjectLevel, groupChain } from "./access.js";
import type { AccessEvents } from "./access-events.js";
import { type Actor, isPrivileged, resolveActor } from "./actor.js";
import type { Directory, ProjectView } from "./directory.js";
import { pathTaken } from "./errors.js";
import type { AuthStore } from "./ports.js";
import { ACCESS, type NamespaceRecord, type UserRecord } from "./types.js";
import { pathFromName, validateLevel, validateName, validatePath } from "./validation.js";

export interface CreateProjectInput {
  name: string;
  /** Derived from the name when empty. */
  path: string;
  /** 0 = the caller's personal namespace. */
  namespaceId: number;
}

export interface MemberView {
  user: UserRecord;
  accessLevel: number;
}

/** Projects and their memberships. */
export class ProjectService {
  constructor(
    private readonly store: AuthStore,
    private readonly directory: Directory,
    private readonly clock: Clock,
    private readonly access?: AccessEvents,
  ) {}

  /**
   * In the caller's personal namespace, or in a group where the caller is Maintainer+ (admins
   * anywhere). The creator becomes Maintainer, or Owner in its own personal namespace.
   */
  async createProject(ctx: CallContext, input: CreateProjectInput): Promise<ProjectView> {
    const actor = await resolveActor(this.store, ctx);
    const name = validateName(input.name);
    const path = validatePath(input.path.trim() || pathFromName(name));
    const ns = await this.targetNamespace(actor, input.namespaceId);
    const pathWithNamespace = `${ns.fullPath}/${path}`;
    if (await this.store.findNamespaceByFullPath(pathWithNamespace)) throw pathTaken();
    const project = await this.store.insertProject({
      name,
      path,
      namespaceId: ns.id,
      pathWithNamespace,
      createdAt: this.clock.now(),
    });
    if (actor.kind === "user") {
      const level = ns.kind === "user" && ns.ownerId === actor.user.id ? ACCESS.OWNER : ACCESS.MAINTAINER;
      await this.store.upsertMembership({
        sourceType: "project",
        sourceId: project.id,
        userId: actor.user.id,
        accessLevel: level,
      });
      await this.access?.userChanged(actor.user.id);
    }
    return this.directory.projectView(project, ns, await this.directory.projectLevel(actor, project, ns));
  }

  private async targetNamespace(actor: Actor, namespaceId: number): Promise<NamespaceRecord> {
    if (!namespaceId) {
      if (actor.kind !== "user") throw paramMissing("namespace_id");
      const own = await this.store.getNamespace(actor.user.namespaceId);
      if (!own) throw notFound("Namespace");
      return own;
    }
    const ns = await this.store.getNamespace(namespaceId);
    if (!ns) throw notFound("Namespace");
    if (isPrivileged(actor) || actor.kind !== "user") return ns;
    if (ns.kind === "user") {
      if (ns.ownerId !== actor.user.id) throw notFound("Namespace");
      return ns;
    }
    const level = await this.directory.groupLevel(actor, ns);
    if (level === ACCESS.NONE) throw notFound("Namespace");
    if (level < ACCESS.MAINTAINER) throw forbidden();
    return ns;
  }

  async getProject(ctx: CallContext, idOrPath: string): Promise<ProjectView> {
    return this.directory.visibleProject(await resolveActor(this.store, ctx), idOrPath);
  }

  /** Maintainer+; granting Owner needs Owner (or admin). Returns the effective level afterwards. */
  async addMember(ctx: CallContext, idOrPath: string, userId: number, level: number): Promise<MemberView> {
    validateLevel(level);
    const view = await this.directory.visibleProject(await resolveActor(this.store, ctx), idOrPath);
    if (view.accessLevel < ACCESS.MAINTAINER) throw forbidden();
    if (level === ACCESS.OWNER && view.accessLevel < ACCESS.OWNER) throw forbidden();
    const user = await this.store.getUser(userId);
    if (!user) throw notFound("User");
    await this.store.upsertMembership({ sourceType: "project", sourceId: view.project.id, userId, accessLevel: level });
    await this.access?.userChanged(userId);
    const memberships = await this.store.listMembershipsOfUser(userId);
    return { user, accessLevel: effectiveProjectLevel(view.project, view.namespace, userId, memberships) };
  }

  /** Every user with access to the project and its effective level, by user id. */
  async listMembers(ctx: CallContext, projectId: number): Promise<MemberView[]> {
    const view = await this.directory.visibleProject(await resolveActor(this.store, ctx), String(projectId));
    const sources = [
      { type: "project" as const, id: view.project.id },
      ...groupChain(view.namespace).map((id) => ({ type: "group" as const, id })),
    ];
    const levels = new Map<number, number>();
    for (const m of await this.store.listMembershipsOfSources(sources)) {
      levels.set(m.userId, Math.max(levels.get(m.userId) ?? 0, m.accessLevel));
    }
    if (view.namespace.kind === "user") levels.set(view.namespace.ownerId, ACCESS.OWNER);
    const users = await this.store.getUsers([...levels.keys()]);
    return users.sort((a, b) => a.id - b.id).map((user) => ({ user, accessLevel: levels.get(user.id) ?? ACCESS.NONE }));
  }
}
