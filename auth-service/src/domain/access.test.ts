import { describe, expect, it } from "vitest";
import { effectiveGroupLevel, effectiveProjectLevel, parseIdOrPath } from "./access.js";
import type { MembershipRecord, NamespaceRecord, ProjectRecord } from "./types.js";

const at = new Date(0);
const ns = (id: number, ancestorIds: number[], kind: "group" | "user" = "group", ownerId = 0): NamespaceRecord => ({
  id,
  kind,
  name: `n${id}`,
  path: `n${id}`,
  fullPath: `n${id}`,
  parentId: ancestorIds.at(-1) ?? 0,
  ancestorIds,
  plan: "free",
  ownerId,
  createdAt: at,
});
const project = (id: number, namespaceId: number): ProjectRecord => ({
  id,
  name: "p",
  path: "p",
  namespaceId,
  pathWithNamespace: "x/p",
  createdAt: at,
});
const m = (sourceType: "group" | "project", sourceId: number, accessLevel: number, userId = 7): MembershipRecord => ({
  sourceType,
  sourceId,
  userId,
  accessLevel,
});

describe("effective access levels", () => {
  const top = ns(1, []);
  const sub = ns(2, [1]);
  const deep = ns(3, [1, 2]);

  it("inherits group membership down the tree and takes the highest level", () => {
    expect(effectiveGroupLevel(deep, [m("group", 1, 20)])).toBe(20);
    expect(effectiveGroupLevel(deep, [m("group", 1, 20), m("group", 2, 40), m("group", 3, 10)])).toBe(40);
    expect(effectiveGroupLevel(top, [m("group", 2, 40)])).toBe(0);
    expect(effectiveGroupLevel(sub, [m("project", 2, 50)])).toBe(0);
  });

  it("takes the maximum of direct project and every ancestor group membership", () => {
    const p = project(9, 3);
    expect(effectiveProjectLevel(p, deep, 7, [m("project", 9, 30), m("group", 1, 20)])).toBe(30);
    expect(effectiveProjectLevel(p, deep, 7, [m("project", 9, 10), m("group", 2, 40)])).toBe(40);
    expect(effectiveProjectLevel(p, deep, 7, [m("project", 8, 50), m("group", 4, 50)])).toBe(0);
  });

  it("makes the owner of a personal namespace Owner of its projects", () => {
    const personal = ns(5, [], "user", 7);
    expect(effectiveProjectLevel(project(1, 5), personal, 7, [])).toBe(50);
    expect(effectiveProjectLevel(project(1, 5), personal, 8, [])).toBe(0);
    expect(effectiveProjectLevel(project(1, 5), personal, 8, [m("project", 1, 20, 8)])).toBe(20);
  });

  it("parses numeric ids and paths", () => {
    expect(parseIdOrPath("42")).toEqual({ id: 42 });
    expect(parseIdOrPath("group/project")).toEqual({ path: "group/project" });
  });
});
