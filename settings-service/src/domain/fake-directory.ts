import { notFound } from "@tocsin/core";
import type { Directory, EmailInfo, GroupInfo, MemberInfo, Plan, ProjectInfo } from "./ports.js";

/**
 * An in-memory Directory (the port below) for unit tests of the domain rules (auth-service is outside this
 * service; end-to-end tests use the real one). Visibility: a viewer sees a source when listed in
 * its `viewers`.
 */
export class FakeDirectory implements Directory {
  readonly projects = new Map<number, ProjectInfo & { path: string; viewers: Set<number> }>();
  readonly groups = new Map<number, GroupInfo & { path: string; viewers: Set<number> }>();
  readonly emails = new Map<number, EmailInfo[]>();
  readonly members = new Map<number, MemberInfo[]>();
  readonly userGroups = new Map<number, GroupInfo[]>();
  calls = 0;

  addGroup(id: number, path: string, plan: Plan, viewers: number[]) {
    this.groups.set(id, { id, path, plan, viewers: new Set(viewers) });
  }

  addProject(id: number, path: string, ancestorGroupIds: number[], viewers: number[]) {
    this.projects.set(id, { id, path, ancestorGroupIds, tier: "free", viewers: new Set(viewers) });
  }

  private find<T extends { id: number; path: string; viewers: Set<number> }>(
    all: Map<number, T>,
    idOrPath: string,
    viewer?: number,
  ) {
    const item = /^\d+$/.test(idOrPath) ? all.get(Number(idOrPath)) : [...all.values()].find((x) => x.path === idOrPath);
    return item && (viewer === undefined || item.viewers.has(viewer)) ? item : undefined;
  }

  async getProject(idOrPath: string, viewerId: number | undefined) {
    this.calls++;
    const p = this.find(this.projects, idOrPath, viewerId);
    if (!p) throw notFound("Project");
    return { id: p.id, ancestorGroupIds: p.ancestorGroupIds, tier: p.tier };
  }

  async getGroup(idOrPath: string, viewerId: number) {
    this.calls++;
    const g = this.find(this.groups, idOrPath, viewerId);
    if (!g) throw notFound("Group");
    return { id: g.id, plan: g.plan };
  }

  async listEmails(userId: number) {
    this.calls++;
    return this.emails.get(userId) ?? [];
  }

  async listProjectMembers(projectId: number) {
    this.calls++;
    return this.members.get(projectId) ?? [];
  }

  async listUserGroups(userId: number) {
    this.calls++;
    return this.userGroups.get(userId) ?? [];
  }
}
