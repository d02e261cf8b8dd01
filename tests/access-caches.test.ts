import { until } from "@tocsin/testing";
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

  it("refuses a revoked token once the revocation reaches the gateway (its watch stream, not the TTL)", async () => {
    const alice = await seedUser(system.url, system.adminToken, { username: "cache-alice" });
    const admin = api(system.url, system.adminToken);
    const created = await admin.post(`/api/v4/users/${alice.user.id}/personal_access_tokens`, { name: "c", scopes: ["api"] });
    expect(created.status).toBe(201);
    const as = api(system.url, created.body.token);
    // Warm every cache on the way: the principal is now served by the gateway itself.
    for (let i = 0; i < 5; i++) expect((await as.get("/api/v4/user")).status).toBe(200);

    expect((await admin.del(`/api/v4/personal_access_tokens/${created.body.id}`)).status).toBe(204);
    // A condition, not a stopwatch: the revocation reaches the gateway's cache through the watch
    // stream. The bound stays well under the cache's 30 s TTL, so only the stream can have done it.
    const refused = await until(async () => {
      const res = await as.get("/api/v4/user");
      return res.status === 401 && res;
    }, 10_000);
    expect(refused.body).toMatchObject({ error: "invalid_token", error_description: expect.stringContaining("revoked") });
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
