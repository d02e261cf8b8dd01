import { captureLogger } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import type { RunningSystem } from "./harness.js";
import { startIdentitySystem } from "./identity.fixtures.js";
import { addMember, type SeededUser, seedGroup, seedProject } from "./seed.js";

/**
 * Identity and administration through the public REST API (PRODUCT.md section 2), over real HTTP
 * and real gRPC: groups with plans and subgroups, projects in groups and in personal namespaces,
 * inherited memberships and what non-members see. Users, tokens and the token-free logs:
 * tests/identity-users-tokens.test.ts.
 */
describe("identity and administration, end to end", () => {
  const log = captureLogger("debug");
  let system: RunningSystem;
  let url = "";
  let ADMIN_TOKEN = "";
  let alice: SeededUser;
  let bob: SeededUser;
  let carol: SeededUser;
  const admin = () => api(url, ADMIN_TOKEN);

  beforeAll(async () => {
    ({ system, alice, bob, carol } = await startIdentitySystem({ logger: log.logger }));
    url = system.url;
    ADMIN_TOKEN = system.adminToken;
  });

  afterAll(async () => {
    await system?.stop();
  });

  describe("groups, projects and visibility", () => {
    let acme: { id: number };
    let platform: { id: number; full_path: string };
    let project: { id: number; path_with_namespace: string };

    it("creates groups with plans and subgroups", async () => {
      const bad = await admin().post("/api/v4/groups", { name: "Acme", path: "acme", plan: "gold" });
      expect(bad).toMatchObject({ status: 400, body: { error: "plan does not have a valid value" } });
      acme = await seedGroup(url, ADMIN_TOKEN, { path: "acme", name: "Acme", plan: "premium" });
      expect(acme).toMatchObject({ name: "Acme", path: "acme", full_path: "acme", parent_id: null, plan: "premium" });
      platform = await seedGroup(url, ADMIN_TOKEN, { path: "platform", parentId: acme.id });
      expect(platform).toMatchObject({ full_path: "acme/platform", parent_id: acme.id, plan: "premium" });
      const own = await seedGroup(url, alice.token, { path: "alices-group" });
      expect(own.plan).toBe("free");
    });

    it("lets only admins set a plan, on top-level namespaces", async () => {
      const denied = await api(url, alice.token).post("/api/v4/groups", { name: "Rich", path: "rich", plan: "ultimate" });
      expect(denied.status).toBe(403);
      const res = await admin().put(`/api/v4/namespaces/${acme.id}`, { plan: "ultimate" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: acme.id, plan: "ultimate" });
      const sub = await admin().get(`/api/v4/groups/${platform.id}`);
      expect(sub.body.plan).toBe("ultimate");
      const notAdmin = await api(url, alice.token).put(`/api/v4/namespaces/${acme.id}`, { plan: "free" });
      expect(notAdmin.status).toBe(403);
      const badPlan = await admin().put(`/api/v4/namespaces/${acme.id}`, { plan: "gold" });
      expect(badPlan).toMatchObject({ status: 400, body: { error: "plan does not have a valid value" } });
    });

    it("creates projects in groups and in personal namespaces", async () => {
      project = await seedProject(url, ADMIN_TOKEN, { path: "api", name: "API", namespaceId: platform.id });
      expect(project).toMatchObject({
        name: "API",
        path: "api",
        path_with_namespace: "acme/platform/api",
        namespace: { id: platform.id, full_path: "acme/platform", kind: "group" },
        tier: "ultimate",
      });
      const personal = await seedProject(url, alice.token, { path: "dotfiles" });
      expect(personal).toMatchObject({
        path_with_namespace: "alice/dotfiles",
        namespace: { full_path: "alice", kind: "user" },
        tier: "free",
      });
    });

    it("hides projects and groups from non-members", async () => {
      const asBob = api(url, bob.token);
      expect(await asBob.get(`/api/v4/projects/${project.id}`)).toMatchObject({
        status: 404,
        body: { message: "404 Project Not Found" },
      });
      expect(await asBob.get("/api/v4/projects/acme%2Fplatform%2Fapi")).toMatchObject({ status: 404 });
      expect(await asBob.get(`/api/v4/groups/${acme.id}`)).toMatchObject({
        status: 404,
        body: { message: "404 Group Not Found" },
      });
      expect(await asBob.get("/api/v4/projects/999999")).toMatchObject({
        status: 404,
        body: { message: "404 Project Not Found" },
      });
    });

    it("inherits group membership into subgroups and their projects", async () => {
      const member = await addMember(url, ADMIN_TOKEN, "groups", acme.id, bob.user.id, 30);
      expect(member).toMatchObject({ id: bob.user.id, username: "bob", name: "bob", access_level: 30 });
      const asBob = api(url, bob.token);
      const byId = await asBob.get(`/api/v4/projects/${project.id}`);
      expect(byId).toMatchObject({ status: 200, body: { id: project.id, path_with_namespace: "acme/platform/api" } });
      const byPath = await asBob.get("/api/v4/projects/acme%2Fplatform%2Fapi");
      expect(byPath).toMatchObject({ status: 200, body: { id: project.id } });
      expect(await asBob.get("/api/v4/groups/acme%2Fplatform")).toMatchObject({ status: 200, body: { id: platform.id } });
    });

    it("lets Maintainers add project members, not Developers", async () => {
      const asBob = api(url, bob.token);
      const denied = await asBob.post(`/api/v4/projects/${project.id}/members`, { user_id: carol.user.id, access_level: 20 });
      expect(denied.status).toBe(403);
      const badLevel = await admin().post(`/api/v4/projects/${project.id}/members`, { user_id: carol.user.id, access_level: 35 });
      expect(badLevel).toMatchObject({ status: 400, body: { error: "access_level does not have a valid value" } });
      const added = await addMember(url, ADMIN_TOKEN, "projects", "acme/platform/api", carol.user.id, 20);
      expect(added).toMatchObject({ id: carol.user.id, username: "carol", access_level: 20 });
      expect((await api(url, carol.token).get(`/api/v4/projects/${project.id}`)).status).toBe(200);
      // Carol's project membership does not reveal the group.
      expect((await api(url, carol.token).get(`/api/v4/groups/${acme.id}`)).status).toBe(404);
    });

    it("lets a group Owner add group members", async () => {
      const own = await api(url, alice.token).get("/api/v4/groups/alices-group");
      expect(own.status).toBe(200);
      const added = await api(url, alice.token).post(`/api/v4/groups/${own.body.id}/members`, {
        user_id: carol.user.id,
        access_level: 40,
      });
      expect(added).toMatchObject({ status: 201, body: { id: carol.user.id, access_level: 40 } });
      const denied = await api(url, carol.token).post(`/api/v4/groups/${own.body.id}/members`, {
        user_id: bob.user.id,
        access_level: 10,
      });
      expect(denied.status).toBe(403);
    });
  });

  it("keeps every token of these requests out of the logs", () => {
    const text = log.text();
    expect(text).toContain("/api/v4/groups");
    for (const token of [ADMIN_TOKEN, alice.token, bob.token, carol.token]) expect(text).not.toContain(token);
  });
});
