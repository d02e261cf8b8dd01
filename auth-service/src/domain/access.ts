import { ACCESS, type MembershipRecord, type NamespaceRecord, type ProjectRecord } from "./types.js";

/** Group ids whose memberships apply to `ns` (itself and its ancestors); none for user namespaces. */
export function groupChain(ns: NamespaceRecord): number[] {
  return ns.kind === "group" ? [...ns.ancestorIds, ns.id] : [];
}

/** The highest direct level among `memberships` on the given sources. */
function maxLevel(memberships: MembershipRecord[], groupIds: number[], projectId?: number): number {
  let level: number = ACCESS.NONE;
  for (const m of memberships) {
    const applies =
      (m.sourceType === "group" && groupIds.includes(m.sourceId)) ||
      (m.sourceType === "project" && projectId !== undefined && m.sourceId === projectId);
    if (applies && m.accessLevel > level) level = m.accessLevel;
  }
  return level;
}

/** Effective level of a user on a group: the highest over the group and every ancestor. */
export function effectiveGroupLevel(group: NamespaceRecord, memberships: MembershipRecord[]): number {
  return maxLevel(memberships, groupChain(group));
}

/**
 * Effective level of `userId` on a project: the highest of its direct membership and every
 * membership in the project's group chain; the owner of a personal namespace is Owner.
 */
export function effectiveProjectLevel(
  project: ProjectRecord,
  ns: NamespaceRecord,
  userId: number,
  memberships: MembershipRecord[],
): number {
  if (ns.kind === "user" && ns.ownerId === userId) return ACCESS.OWNER;
  return maxLevel(memberships, groupChain(ns), project.id);
}

/** Id of the top-level namespace of `ns` (itself when top-level). */
export function topLevelId(ns: NamespaceRecord): number {
  return ns.ancestorIds[0] ?? ns.id;
}

/** Parses `1`-style ids; anything else is a path. */
export function parseIdOrPath(value: string): { id: number } | { path: string } {
  const trimmed = value.trim();
  if (/^\d{1,15}$/.test(trimmed)) return { id: Number(trimmed) };
  return { path: trimmed };
}
