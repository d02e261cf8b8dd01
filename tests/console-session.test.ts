import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { browserSession } from "./browser-session.js";
import { type RunningSystem, startSystem } from "./harness.js";

const ADMIN_PASSWORD = "root-password-for-tests";
const INVALID = { message: "Invalid login or password." };
const BLOCKED = { message: "403 Forbidden - Your account has been blocked." };
const BAD_CSRF = { message: "403 Forbidden: invalid CSRF token" };

const mongoUrl = inject("mongoUrl");
const backends: Array<[string, Record<string, string>]> = [["embedded store", {}]];
if (mongoUrl) backends.push(["MongoDB", { MONGO_URL: mongoUrl }]);
else console.warn("[console-session] no MongoDB-protocol server: the MongoDB variant is SKIPPED");

/** Console sign-in, sessions, CSRF and passwords over real HTTP and gRPC (PRODUCT.md section 8). */
describe.each(backends)("console sessions, end to end (%s)", (_name, env) => {
  let system: RunningSystem;
  let url = "";
  const admin = () => api(url, system.adminToken);
  const createUser = async (username: string, password?: string) => {
    const res = await admin().post("/api/v4/users", { username, email: `${username}@example.com`, name: username, password });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: number; username: string };
  };

  beforeAll(async () => {
    system = await startSystem({ env: { ...env, ADMIN_PASSWORD } });
    url = system.url;
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("signs root in with ADMIN_PASSWORD, by username or e-mail, with the cookie the contract fixes", async () => {
    for (const login of ["root", "ADMIN@example.com"]) {
      const browser = browserSession(url);
      const res = await browser.signIn(login, ADMIN_PASSWORD);
      expect(res.status, res.text).toBe(200);
      expect(res.body.user).toMatchObject({ username: "root", is_admin: true, state: "active" });
      expect(res.body.csrf_token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(res.setCookie).toMatch(
        /^_tocsin_session=[A-Za-z0-9_-]{40,}; Max-Age=604800; Path=\/; Expires=.*; HttpOnly; SameSite=Lax$/,
      );
      expect(res.headers.get("cache-control")).toBe("no-store");
      const me = await browser.get("/-/session");
      expect(me.status).toBe(200);
      expect(me.body).toEqual({ user: res.body.user, csrf_token: res.body.csrf_token });
      const user = await browser.get("/api/v4/user");
      expect(user.status).toBe(200);
      expect(user.body).toEqual(res.body.user);
    }
  });

  it("answers one 401 for a wrong password and an unknown login, and 401 without a session", async () => {
    await createUser("wanda", "wanda-password");
    for (const [login, password] of [
      ["wanda", "not-her-password"],
      ["nobody", "wanda-password"],
    ]) {
      const res = await browserSession(url).signIn(login as string, password as string);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID);
      expect(res.setCookie).toBeNull();
    }
    const missing = await browserSession(url).post("/-/session", { login: "wanda" });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "password is missing" });
    const anonymous = await browserSession(url).get("/-/session");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: "401 Unauthorized" });
  });

  it("locks a login after ten failed sign-ins, still answering the same 401", async () => {
    await createUser("lucy", "lucy-password");
    const browser = browserSession(url);
    for (let i = 0; i < 10; i++)
      expect((await browser.signIn(i % 2 ? "lucy" : "lucy@example.com", "guess-guess")).status).toBe(401);
    const locked = await browser.signIn("lucy", "lucy-password");
    expect(locked.status).toBe(401);
    expect(locked.body).toEqual(INVALID);
  });

  it("needs the CSRF token on unsafe calls made with the cookie, never on token calls", async () => {
    const browser = browserSession(url);
    expect((await browser.signIn("root", ADMIN_PASSWORD)).status).toBe(200);
    const refused = await browser.post("/api/v4/groups", { name: "No CSRF", path: "no-csrf" }, { csrf: false });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(BAD_CSRF);
    const wrong = await browser.request(
      "POST",
      "/api/v4/groups",
      { name: "Bad", path: "bad" },
      { csrf: false, headers: { "x-csrf-token": "nope" } },
    );
    expect(wrong.status).toBe(403);
    const made = await browser.post("/api/v4/groups", { name: "With CSRF", path: "with-csrf" });
    expect(made.status, made.text).toBe(201);
    const viaToken = await admin().post("/api/v4/groups", { name: "Token", path: "by-token" });
    expect(viaToken.status).toBe(201);
    const signOutWithoutCsrf = await browser.del("/-/session", { csrf: false });
    expect(signOutWithoutCsrf.status).toBe(403);
  });

  it("ends the session on sign-out: the same cookie then gets 401", async () => {
    const browser = browserSession(url);
    await browser.signIn("root", ADMIN_PASSWORD);
    const cookie = browser.cookie();
    expect((await browser.get("/api/v4/user")).status).toBe(200);
    const out = await browser.del("/-/session");
    expect(out.status).toBe(204);
    expect(out.setCookie).toMatch(/^_tocsin_session=; Path=\/; Expires=Thu, 01 Jan 1970/);
    const thief = browserSession(url);
    thief.setCookie(cookie);
    expect((await thief.get("/api/v4/user")).status).toBe(401);
    expect((await thief.get("/-/session")).status).toBe(401);
  });

  it("ends every session of a user on a password change, and the new password works", async () => {
    const pat = await createUser("pat", "pat-password-1");
    const one = browserSession(url);
    const two = browserSession(url);
    await one.signIn("pat", "pat-password-1");
    await two.signIn("pat@example.com", "pat-password-1");
    const wrongCurrent = await one.put("/api/v4/user/password", { current_password: "nope-nope", password: "pat-password-2" });
    expect(wrongCurrent.status).toBe(400);
    const short = await one.put("/api/v4/user/password", { current_password: "pat-password-1", password: "short" });
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ message: { password: ["is too short (minimum is 8 characters)"] } });
    const changed = await one.put("/api/v4/user/password", { current_password: "pat-password-1", password: "pat-password-2" });
    expect(changed.status, changed.text).toBe(204);
    await until(async () => (await two.get("/api/v4/user")).status === 401);
    expect((await one.get("/-/session")).status).toBe(401);
    expect((await browserSession(url).signIn("pat", "pat-password-1")).status).toBe(401);
    const again = browserSession(url);
    expect((await again.signIn("pat", "pat-password-2")).status).toBe(200);

    // An admin setting a password ends the sessions too.
    const set = await admin().put(`/api/v4/users/${pat.id}`, { password: "pat-password-3" });
    expect(set.status, set.text).toBe(200);
    await until(async () => (await again.get("/api/v4/user")).status === 401);
    expect((await browserSession(url).signIn("pat", "pat-password-3")).status).toBe(200);
  });

  it("answers 403 to a blocked user's session, token and sign-in", async () => {
    const bea = await createUser("bea", "bea-password");
    const token = (await admin().post(`/api/v4/users/${bea.id}/personal_access_tokens`, { name: "t", scopes: ["api"] })).body
      .token as string;
    const browser = browserSession(url);
    await browser.signIn("bea", "bea-password");
    expect((await browser.get("/api/v4/user")).status).toBe(200);
    const block = await admin().post(`/api/v4/users/${bea.id}/block`);
    expect(block.status).toBe(201);
    expect(block.body).toBe(true);
    await until(async () => (await browser.get("/api/v4/user")).status === 403);
    expect((await browser.get("/api/v4/user")).body).toEqual(BLOCKED);
    expect((await browser.get("/-/session")).status).toBe(403);
    const viaToken = await api(url, token).get("/api/v4/user");
    expect(viaToken.status).toBe(403);
    expect(viaToken.body).toEqual(BLOCKED);
    const signIn = await browserSession(url).signIn("bea", "bea-password");
    expect(signIn.status).toBe(403);
    expect(signIn.body).toEqual(BLOCKED);
    expect((await admin().get(`/api/v4/users?search=bea`)).body[0]).toMatchObject({ username: "bea", state: "blocked" });
    expect((await admin().post(`/api/v4/users/${bea.id}/unblock`)).status).toBe(201);
    await until(async () => (await browser.get("/api/v4/user")).status === 200);
  });

  it("checks passwords and reserved names on user and group creation", async () => {
    const short = await admin().post("/api/v4/users", {
      username: "shorty",
      email: "s@example.com",
      name: "S",
      password: "1234567",
    });
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ message: { password: ["is too short (minimum is 8 characters)"] } });
    for (const name of ["users", "admin", "api", "assets", "metrics", "Admin"]) {
      const user = await admin().post("/api/v4/users", { username: name, email: `${name}@example.com`, name });
      expect(user.status).toBe(400);
      expect(JSON.stringify(user.body)).toContain("reserved");
      const group = await admin().post("/api/v4/groups", { name, path: name });
      expect(group.status).toBe(400);
      expect(JSON.stringify(group.body)).toContain("reserved");
    }
  });

  it("lets a signed-in user manage their own personal access tokens", async () => {
    const tess = await createUser("tess", "tess-password");
    const browser = browserSession(url);
    await browser.signIn("tess", "tess-password");
    const made = await browser.post("/api/v4/user/personal_access_tokens", { name: "laptop", scopes: ["read_api"] });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ name: "laptop", scopes: ["read_api"], active: true, user_id: tess.id });
    expect(made.body.token).toMatch(/^glpat-/);
    const list = await browser.get("/api/v4/personal_access_tokens");
    expect(list.status).toBe(200);
    expect(list.body.map((t: { name: string }) => t.name)).toEqual(["laptop"]);
    expect(list.body[0].token).toBeUndefined();
    expect(list.headers.get("x-total")).toBe("1");
    expect((await browser.get(`/api/v4/personal_access_tokens?user_id=1`)).status).toBe(403);
    const byAdmin = await admin().get(`/api/v4/personal_access_tokens?user_id=${tess.id}`);
    expect(byAdmin.body.map((t: { name: string }) => t.name)).toEqual(["laptop"]);
    expect((await api(url, made.body.token).get("/api/v4/user")).body.username).toBe("tess");
  });
});

describe("console sessions behind https", () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem({ env: { ADMIN_PASSWORD, EXTERNAL_URL: "https://alerts.example.com" } });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("marks the session cookie Secure when EXTERNAL_URL is https", async () => {
    const res = await browserSession(system.url).signIn("root", ADMIN_PASSWORD);
    expect(res.status).toBe(200);
    expect(res.setCookie).toMatch(/; HttpOnly; Secure; SameSite=Lax$/);
  });
});
