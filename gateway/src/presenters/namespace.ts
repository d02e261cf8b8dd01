import { internal } from "@tocsin/core";
import { type authV1, planName } from "@tocsin/proto";
import { isoTime } from "./time.js";

export function toGroupJson(group: authV1.Group) {
  return {
    id: group.id,
    name: group.name,
    path: group.path,
    full_path: group.fullPath,
    parent_id: group.parentId || null,
    plan: planName(group.plan),
    created_at: isoTime(group.createdAt),
  };
}

/** The namespace entity of `PUT /namespaces/:id` (only groups carry a plan). */
export function toNamespaceJson(group: authV1.Group) {
  return { ...toGroupJson(group), kind: "group" };
}

export function toProjectJson(project: authV1.Project) {
  const ns = project.namespace;
  if (!ns) throw internal(new Error("project without namespace"));
  return {
    id: project.id,
    name: project.name,
    path: project.path,
    path_with_namespace: project.pathWithNamespace,
    namespace: { id: ns.id, full_path: ns.fullPath, kind: ns.kind },
    tier: planName(project.tier),
    created_at: isoTime(project.createdAt),
    // GitLab's shape; project_access carries the caller's effective level (direct or inherited;
    // Owner for admins), so a client needs to read only this one.
    permissions: {
      project_access: project.accessLevel ? { access_level: project.accessLevel, notification_level: null } : null,
      group_access: null,
    },
  };
}

/** A member: the user's id, name and effective access level. */
export function toMemberJson(member: authV1.Member) {
  const user = member.user;
  if (!user) throw internal(new Error("member without user"));
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.blocked ? "blocked" : "active",
    access_level: member.accessLevel,
  };
}
