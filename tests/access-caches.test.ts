import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, seedGroup, seedProject, seedUser } from "./seed.js";

// The gateway caches token → principal and settings-service caches visibility answers (see
// gateway/src/middleware/principal-cache.ts, settings-service/src/clients/cached-directory.ts).
// auth-service's WatchAccessChanges stream keeps them honest: these are the guarantees users see.
describe("access caches stay coherent with auth-service", () => {
  let system: RunningSystem;

  beforeAll(async () => {
    system = await startSystem();
  });
  afterAll(async () => {
    await system?.stop();
  });

  /** Polls `fn` until `done` holds, for at most 1 s; returns the last answer and the tries. */
  async function pollUntil<T>(fn: () => Promise<T>, done: (value: T) => boolean) {
    const end = Date.now() + 1000;
    let tries = 0;
    for (;;) {
      tries++;
      const value = await fn();
      if (done(value) || Date.now() > end) return { value, tries };
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  it("refuses a revoked token on the next request through the gateway", async () => {
    const alice = await seedUser(system.url, system.adminToken, { username: "cache-alice" });
    const admin = api(system.url, system.adminToken);
    const created = await admin.post(`/api/v4/users/${alice.user.id}/personal_access_tokens`, { name: "c", scopes: ["api"] });
    expect(created.status).toBe(201);
    const as = api(system.url, created.body.token);
    // Warm every cache on the way: the principal is now served by the gateway itself.
    for (let i = 0; i < 5; i++) expect((await as.get("/api/v4/user")).status).toBe(200);

    expect((await admin.del(`/api/v4/personal_access_tokens/${created.body.id}`)).status).toBe(204);
    const { value, tries } = await pollUntil(
      () => as.get("/api/v4/user"),
      (res) => res.status === 401,
    );
    expect(value.status).toBe(401);
    expect(value.body).toMatchObject({ error: "invalid_token", error_description: expect.stringContaining("revoked") });
    expect(tries).toBeLessThanOrEqual(2);
    // The user's other token is unaffected.
    expect((await api(system.url, alice.token).get("/api/v4/user")).status).toBe(200);
  });

  it("shows a project's settings to a user the moment they become a member", async () => {
    const owner = await seedUser(system.url, system.adminToken, { username: "cache-owner" });
    const bob = await seedUser(system.url, system.adminToken, { username: "cache-bob" });
    const project = await seedProject(system.url, owner.token, { path: "cached" });
    const own = await seedProject(system.url, bob.token, { path: "own" });
    const asBob = api(system.url, bob.token);
    const path = `/api/v4/projects/${project.id}/notification_settings`;
    for (let i = 0; i < 3; i++) {
      expect((await asBob.get(`/api/v4/projects/${own.id}/notification_settings`)).status).toBe(200);
      expect(await asBob.get(path)).toMatchObject({ status: 404, body: { message: "404 Project Not Found" } });
    }
    await addMember(system.url, owner.token, "projects", project.id, bob.user.id, 30);
    expect(await asBob.get(path)).toMatchObject({ status: 200, body: { level: "global" } });
    expect((await asBob.put(path, { level: "watch" })).body).toMatchObject({ level: "watch" });
  });

  it("shows new_epic in the global setting the moment the user joins an Ultimate group", async () => {
    const carol = await seedUser(system.url, system.adminToken, { username: "cache-carol" });
    const asCarol = api(system.url, carol.token);
    expect((await asCarol.put("/api/v4/notification_settings", { level: "custom" })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      expect((await asCarol.get("/api/v4/notification_settings")).body.events).not.toHaveProperty("new_epic");
    }
    const ultimate = await seedGroup(system.url, system.adminToken, { path: "cache-ult", plan: "ultimate" });
    await addMember(system.url, system.adminToken, "groups", ultimate.id, carol.user.id, 30);
    expect((await asCarol.get("/api/v4/notification_settings")).body.events).toHaveProperty("new_epic", false);
  });
});
