import { captureLogger } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import type { RunningSystem } from "./harness.js";
import { startIdentitySystem } from "./identity.fixtures.js";
import type { SeededUser } from "./seed.js";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Identity and administration through the public REST API (PRODUCT.md section 2), over real HTTP
 * and real gRPC, with every process's log lines captured to prove that no token reaches them:
 * users and their e-mails, personal access tokens, and the answer while auth-service is down.
 * Groups, projects, memberships and visibility: tests/identity-groups-projects.test.ts.
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
    ({ system, alice, bob, carol } = await startIdentitySystem({ logger: log.logger }));
    url = system.url;
    ADMIN_TOKEN = system.adminToken;
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
