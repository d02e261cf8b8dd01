import { notFound } from "@tocsin/core";
import { effectiveGroupLevel, effectiveProjectLevel, parseIdOrPath, topLevelId } from "./access.js";
import { type Actor, isPrivileged } from "./actor.js";
import type { AuthStore } from "./ports.js";
import { ACCESS, type NamespaceRecord, type PlanName, type ProjectRecord } from "./types.js";

/** A project as callers see it. */
export interface ProjectView {
  project: ProjectRecord;
  namespace: NamespaceRecord;
  tier: PlanName;
  /** Nearest first; empty for personal projects. */
  ancestorGroupIds: number[];
  /** The caller's effective level (Owner for admins and internal calls). */
  accessLevel: number;
}

/** A group as callers see it. */
export interface GroupView {
  group: NamespaceRecord;
  /** The plan of its top-level group. */
  plan: PlanName;
  accessLevel: number;
}

/** Loads groups and projects by id or path and answers who may see them, at what level. */
export class Directory {
  constructor(private readonly store: AuthStore) {}

  async findProject(idOrPath: string): Promise<{ project: ProjectRecord; namespace: NamespaceRecord } | null> {
    const key = parseIdOrPath(idOrPath);
    const project = "id" in key ? await this.store.getProject(key.id) : await this.store.findProjectByPath(key.path);
    if (!project) return null;
    const namespace = await this.store.getNamespace(project.namespaceId);
    return namespace ? { project, namespace } : null;
  }

  async findGroup(idOrPath: string): Promise<NamespaceRecord | null> {
    const key = parseIdOrPath(idOrPath);
    const ns = "id" in key ? await this.store.getNamespace(key.id) : await this.store.findNamespaceByFullPath(key.path);
    return ns && ns.kind === "group" ? ns : null;
  }

  async projectLevel(actor: Actor, project: ProjectRecord, namespace: NamespaceRecord): Promise<number> {
    if (isPrivileged(actor) || actor.kind !== "user") return ACCESS.OWNER;
    const memberships = await this.store.listMembershipsOfUser(actor.user.id);
    return effectiveProjectLevel(project, namespace, actor.user.id, memberships);
  }

  async groupLevel(actor: Actor, group: NamespaceRecord): Promise<number> {
    if (isPrivileged(actor) || actor.kind !== "user") return ACCESS.OWNER;
    return effectiveGroupLevel(group, await this.store.listMembershipsOfUser(actor.user.id));
  }

  /** The plan of the namespace's top-level group; personal namespaces are free. */
  async planOf(ns: NamespaceRecord): Promise<PlanName> {
    if (ns.kind === "user") return "free";
    const topId = topLevelId(ns);
    if (topId === ns.id) return ns.plan;
    return (await this.store.getNamespace(topId))?.plan ?? "free";
  }

  /** The project if the actor may see it, else `404 Project Not Found`. */
  async visibleProject(actor: Actor, idOrPath: string): Promise<ProjectView> {
    const found = await this.findProject(idOrPath);
    if (!found) throw notFound("Project");
    const accessLevel = await this.projectLevel(actor, found.project, found.namespace);
    if (accessLevel === ACCESS.NONE) throw notFound("Project");
    return this.projectView(found.project, found.namespace, accessLevel);
  }

  async projectView(project: ProjectRecord, namespace: NamespaceRecord, accessLevel: number): Promise<ProjectView> {
    const ancestorGroupIds = namespace.kind === "group" ? [namespace.id, ...[...namespace.ancestorIds].reverse()] : [];
    return { project, namespace, tier: await this.planOf(namespace), ancestorGroupIds, accessLevel };
  }

  /** The group if the actor may see it, else `404 Group Not Found`. */
  async visibleGroup(actor: Actor, idOrPath: string): Promise<GroupView> {
    const group = await this.findGroup(idOrPath);
    if (!group) throw notFound("Group");
    const accessLevel = await this.groupLevel(actor, group);
    if (accessLevel === ACCESS.NONE) throw notFound("Group");
    return { group, plan: await this.planOf(group), accessLevel };
  }
}
