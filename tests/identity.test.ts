import { captureLogger } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Identity and administration through the public REST API (PRODUCT.md section 2), over real HTTP
 * and real gRPC, with every process's log lines captured to prove that no token reaches them.
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
  const seenTokens: string[] = [];

  beforeAll(async () => {
    system = await startSystem({ logger: log.logger });
    url = system.url;
    ADMIN_TOKEN = system.adminToken;
    alice = await seedUser(url, ADMIN_TOKEN, { username: "alice", name: "Alice Liddell" });
    bob = await seedUser(url, ADMIN_TOKEN, { username: "bob" });
    carol = await seedUser(url, ADMIN_TOKEN, { username: "carol" });
    seenTokens.push(ADMIN_TOKEN, alice.token, bob.token, carol.token);
  });

  afterAll(async () => {
    await system?.stop();
  });

  describe("users", () => {
    it("knows the admin from ADMIN_TOKEN", async () => {
      const res = await admin().get("/api/v4/user");
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ username: "root", is_admin: true });
    });

    it("creates users with the GitLab shape", async () => {
      const res = await api(url, alice.token).get("/api/v4/user");
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: alice.user.id,
        username: "alice",
        name: "Alice Liddell",
        email: "alice@example.com",
        is_admin: false,
      });
      expect(res.body.created_at).toMatch(ISO_MS);
    });

    it("lets only admins create users, and names missing or taken fields", async () => {
      const denied = await api(url, alice.token).post("/api/v4/users", {
        username: "eve",
        email: "eve@example.com",
        name: "Eve",
      });
      expect(denied.status).toBe(403);
      const missing = await admin().post("/api/v4/users", { username: "eve", name: "Eve" });
      expect(missing).toMatchObject({ status: 400, body: { error: "email is missing" } });
      const badAdmin = await admin().post("/api/v4/users", {
        username: "eve",
        name: "Eve",
        email: "eve@example.com",
        admin: "maybe",
      });
      expect(badAdmin).toMatchObject({ status: 400, body: { error: "admin is invalid" } });
      const taken = await admin().post("/api/v4/users", { username: "alice", email: "other@example.com", name: "Other" });
      expect(taken.status).toBe(409);
    });

    it("adds e-mails: confirmed when an admin skips confirmation, unconfirmed for oneself", async () => {
      const byAdmin = await admin().post(`/api/v4/users/${alice.user.id}/emails`, {
        email: "alice@work.example",
        skip_confirmation: true,
      });
      expect(byAdmin.status).toBe(201);
      expect(byAdmin.body).toMatchObject({ email: "alice@work.example" });
      expect(byAdmin.body.confirmed_at).toMatch(ISO_MS);
      const own = await api(url, alice.token).post("/api/v4/user/emails", { email: "alice@home.example" });
      expect(own.status).toBe(201);
      expect(own.body).toEqual({ id: expect.any(Number), email: "alice@home.example", confirmed_at: null });
      const list = await api(url, alice.token).get("/api/v4/user/emails");
      expect(list.status).toBe(200);
      const byEmail = Object.fromEntries(
        (list.body as { email: string; confirmed_at: string | null }[]).map((e) => [e.email, e.confirmed_at]),
      );
      expect(byEmail["alice@example.com"]).toMatch(ISO_MS);
      expect(byEmail["alice@work.example"]).toMatch(ISO_MS);
      expect(byEmail["alice@home.example"]).toBeNull();
    });
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

  describe("tokens", () => {
    it("creates tokens with the GitLab shape", async () => {
      const res = await admin().post(`/api/v4/users/${bob.user.id}/personal_access_tokens`, {
        name: "ci",
        scopes: ["api"],
        expires_at: "2099-12-31",
      });
      expect(res.status).toBe(201);
      seenTokens.push(res.body.token);
      expect(res.body).toMatchObject({
        name: "ci",
        scopes: ["api"],
        expires_at: "2099-12-31",
        active: true,
        revoked: false,
        user_id: bob.user.id,
      });
      expect(res.body.id).toEqual(expect.any(Number));
      expect(res.body.created_at).toMatch(ISO_MS);
      expect(res.body.token).toEqual(expect.any(String));
      const noExpiry = await admin().post(`/api/v4/users/${bob.user.id}/personal_access_tokens`, {
        name: "forever",
        scopes: ["read_api"],
      });
      expect(noExpiry.body.expires_at).toBeNull();
      seenTokens.push(noExpiry.body.token);
      const badScope = await admin().post(`/api/v4/users/${bob.user.id}/personal_access_tokens`, { name: "x", scopes: ["sudo"] });
      expect(badScope).toMatchObject({ status: 400, body: { error: "scopes does not have a valid value" } });
      const badDate = await admin().post(`/api/v4/users/${bob.user.id}/personal_access_tokens`, {
        name: "x",
        scopes: ["api"],
        expires_at: "soon",
      });
      expect(badDate).toMatchObject({ status: 400, body: { error: "expires_at is invalid" } });
      const notAdmin = await api(url, bob.token).post(`/api/v4/users/${bob.user.id}/personal_access_tokens`, {
        name: "x",
        scopes: ["api"],
      });
      expect(notAdmin.status).toBe(403);
    });

    it("lets a read_api token read but not write", async () => {
      const res = await admin().post(`/api/v4/users/${bob.user.id}/personal_access_tokens`, { name: "ro", scopes: ["read_api"] });
      const readOnly = api(url, res.body.token);
      seenTokens.push(res.body.token);
      expect((await readOnly.get("/api/v4/user")).status).toBe(200);
      const write = await readOnly.post("/api/v4/user/emails", { email: "bob@ro.example" });
      expect(write.status).toBe(403);
      expect(write.body).toEqual({
        error: "insufficient_scope",
        error_description: "The request requires higher privileges than provided by the access token.",
        scope: "api",
      });
    });

    it("refuses revoked and expired tokens, and requests without one", async () => {
      const created = await admin().post(`/api/v4/users/${bob.user.id}/personal_access_tokens`, {
        name: "temp",
        scopes: ["api"],
      });
      seenTokens.push(created.body.token);
      const temp = api(url, created.body.token);
      expect((await temp.get("/api/v4/user")).status).toBe(200);
      // The owner revokes it with another of his tokens.
      const revoke = await api(url, bob.token).del(`/api/v4/personal_access_tokens/${created.body.id}`);
      expect(revoke.status).toBe(204);
      const revoked = await temp.get("/api/v4/user");
      expect(revoked.status).toBe(401);
      expect(revoked.body).toEqual({
        error: "invalid_token",
        error_description: "Token was revoked. You have to re-authorize from the user.",
      });
      expect(revoked.headers.get("www-authenticate")).toContain('error="invalid_token"');

      const old = await admin().post(`/api/v4/users/${bob.user.id}/personal_access_tokens`, {
        name: "old",
        scopes: ["api"],
        expires_at: "2020-01-01",
      });
      expect(old.status).toBe(201);
      seenTokens.push(old.body.token);
      const expired = await api(url, old.body.token).get("/api/v4/user");
      expect(expired.status).toBe(401);
      expect(expired.body).toMatchObject({ error: "invalid_token", error_description: expect.stringContaining("expired") });

      const none = await api(url).get("/api/v4/user");
      expect(none.status).toBe(401);
      expect(none.text).toBe('{"message":"401 Unauthorized"}');
      const unknown = await api(url, "glpat-not-a-real-token").get("/api/v4/user");
      expect(unknown.status).toBe(401);
      expect(unknown.text).toBe('{"message":"401 Unauthorized"}');
    });

    it("accepts Bearer and private_token, and keeps every token out of the logs", async () => {
      const bearer = await fetch(`${url}/api/v4/user`, { headers: { Authorization: `Bearer ${alice.token}` } });
      expect(bearer.status).toBe(200);
      const query = await fetch(`${url}/api/v4/user?private_token=${encodeURIComponent(alice.token)}`);
      expect(query.status).toBe(200);
      const text = log.text();
      expect(text).toContain("/api/v4/user");
      expect(seenTokens.length).toBeGreaterThan(5);
      for (const token of seenTokens) expect(text).not.toContain(token);
    });
  });

  describe("a dependency down", () => {
    it("answers 503 with Retry-After when auth-service is stopped", async () => {
      await system.stopService("auth");
      const res = await api(url, alice.token).get("/api/v4/user");
      expect(res.status).toBe(503);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(res.body).toEqual({ message: expect.any(String) });
    });
  });
});
