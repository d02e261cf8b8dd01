import { type AppError, type CallContext, SecretBox } from "@tocsin/core";
import { FakeClock } from "@tocsin/testing";
import { beforeEach, describe, expect, it } from "vitest";
import type { UseCases } from "../handlers/use-cases.js";
import { createUseCases } from "../service.js";
import { SqliteAuthStore } from "../store/sqlite-auth-store.js";
import { pathFromName } from "./validation.js";

const sys: CallContext = { requestId: "d" };
const as = (userId: number): CallContext => ({ requestId: "d", principal: { userId } });
const fail = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail("expected a failure"),
    (e: unknown) => e as AppError,
  );

describe("groups, projects and keys (domain rules)", () => {
  let store: SqliteAuthStore;
  let u: UseCases;
  let owner: number;
  let dev: number;
  let admin: number;

  beforeEach(async () => {
    store = new SqliteAuthStore(":memory:");
    u = createUseCases(store, "domain-test-secret-0123456789", new FakeClock());
    const mk = async (username: string, admin = false) =>
      (await u.users.createUser(sys, { username, email: `${username}@x.io`, name: username, admin })).id;
    owner = await mk("owner");
    dev = await mk("dev");
    admin = await mk("boss", true);
  });

  it("derives project paths from names", () => {
    expect(pathFromName("My Cool  Project!")).toBe("my-cool-project");
    expect(pathFromName("a_b.c")).toBe("a_b.c");
  });

  it("needs Maintainer+ on the parent for subgroups and projects", async () => {
    const top = await u.groups.createGroup(as(owner), { name: "T", path: "t", parentId: 0, plan: null });
    await u.groups.addMember(as(owner), "t", dev, 30);
    expect((await fail(u.groups.createGroup(as(dev), { name: "S", path: "s", parentId: top.group.id, plan: null }))).code).toBe(
      "PERMISSION_DENIED",
    );
    expect((await fail(u.projects.createProject(as(dev), { name: "p", path: "", namespaceId: top.group.id }))).code).toBe(
      "PERMISSION_DENIED",
    );
    await u.groups.addMember(as(owner), "t", dev, 40);
    const sub = await u.groups.createGroup(as(dev), { name: "S", path: "s", parentId: top.group.id, plan: null });
    expect(sub.accessLevel).toBe(50);
    const project = await u.projects.createProject(as(dev), { name: "p", path: "", namespaceId: top.group.id });
    expect(project.accessLevel).toBe(40);
    expect((await u.projects.getProject(as(owner), "T/P")).accessLevel).toBe(50);
  });

  it("hides groups and projects from non-members, not from admins", async () => {
    const g = await u.groups.createGroup(as(owner), { name: "G", path: "g", parentId: 0, plan: null });
    const p = await u.projects.createProject(as(owner), { name: "p", path: "", namespaceId: g.group.id });
    expect((await fail(u.groups.getGroup(as(dev), "g"))).message).toBe("404 Group Not Found");
    expect((await fail(u.projects.getProject(as(dev), String(p.project.id)))).message).toBe("404 Project Not Found");
    expect((await fail(u.projects.getProject(as(dev), "nope"))).message).toBe("404 Project Not Found");
    expect((await u.projects.getProject(as(admin), "g/p")).accessLevel).toBe(50);
    await u.projects.addMember(as(owner), "g/p", dev, 20);
    expect((await u.projects.getProject(as(dev), "g/p")).accessLevel).toBe(20);
    expect((await fail(u.groups.getGroup(as(dev), "g"))).code).toBe("NOT_FOUND");
  });

  it("lets only Owners (or admins) grant Owner on a project", async () => {
    const g = await u.groups.createGroup(as(owner), { name: "G", path: "g", parentId: 0, plan: null });
    await u.groups.addMember(as(owner), "g", dev, 40);
    await u.projects.createProject(as(owner), { name: "p", path: "", namespaceId: g.group.id });
    expect((await fail(u.projects.addMember(as(dev), "g/p", admin, 50))).code).toBe("PERMISSION_DENIED");
    expect((await u.projects.addMember(as(dev), "g/p", admin, 40)).accessLevel).toBe(40);
    expect((await fail(u.groups.addMember(as(dev), "g", admin, 10))).code).toBe("PERMISSION_DENIED");
  });

  it("takes the tier from the top-level group and plans only from admins on top-level groups", async () => {
    const top = await u.groups.createGroup(as(admin), { name: "T", path: "t", parentId: 0, plan: "premium" });
    const sub = await u.groups.createGroup(as(admin), { name: "S", path: "s", parentId: top.group.id, plan: null });
    expect(sub.plan).toBe("premium");
    const err = await fail(u.groups.createGroup(as(admin), { name: "X", path: "x", parentId: top.group.id, plan: "ultimate" }));
    expect(err).toMatchObject({ code: "INVALID_ARGUMENT", message: "400 Bad request - only top-level groups carry a plan" });
    const p = await u.projects.createProject(as(admin), { name: "p", path: "", namespaceId: sub.group.id });
    expect(p).toMatchObject({ tier: "premium", ancestorGroupIds: [sub.group.id, top.group.id] });
    const personal = await u.projects.createProject(as(owner), { name: "mine", path: "", namespaceId: 0 });
    expect(personal.tier).toBe("free");
    const user = await store.getUser(owner);
    expect((await fail(u.groups.setPlan(sys, user?.namespaceId ?? 0, "premium"))).code).toBe("INVALID_ARGUMENT");
  });

  it("keeps integration keys sealed at rest and answers the webhook resolution", async () => {
    const g = await u.groups.createGroup(as(owner), { name: "G", path: "g", parentId: 0, plan: null });
    const p = await u.projects.createProject(as(owner), { name: "p", path: "", namespaceId: g.group.id });
    const k = await u.keys.issue(sys, { projectId: p.project.id, integrationId: 1, type: "http", active: true });
    const stored = await store.getIntegrationKey(1);
    expect(stored?.sealedToken).not.toContain(k.token);
    expect(new SecretBox("domain-test-secret-0123456789").open(stored?.sealedToken ?? "")).toBe(k.token);
    expect((await fail(u.keys.list(as(dev), p.project.id))).code).toBe("NOT_FOUND");
    await u.projects.addMember(as(owner), "g/p", dev, 30);
    expect((await fail(u.keys.list(as(dev), p.project.id))).code).toBe("PERMISSION_DENIED");
    expect((await u.keys.resolve("G/P", "http", k.record.endpointIdentifier.toUpperCase())).state).toBe("active");
  });
});
