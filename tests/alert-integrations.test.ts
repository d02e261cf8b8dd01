import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Alert integration management through the public REST API (PRODUCT.md section 4): real gateway,
 * real gRPC, real auth-service keys.
 */
describe("alert integrations, end to end", () => {
  let sys: RunningSystem;
  let maintainer: SeededUser;
  let developer: SeededUser;
  let stranger: SeededUser;
  let free: SeededProject;
  let premium: SeededProject;
  const base = (p: SeededProject | string) => `/api/v4/projects/${encodeURIComponent(typeof p === "string" ? p : p.path_with_namespace)}/alert_management`;
  const as = (u: SeededUser) => api(sys.url, u.token);

  beforeAll(async () => {
    sys = await startSystem();
    maintainer = await seedUser(sys.url, sys.adminToken, { username: "mia" });
    developer = await seedUser(sys.url, sys.adminToken, { username: "dev" });
    stranger = await seedUser(sys.url, sys.adminToken, { username: "stranger" });
    const freeGroup = await seedGroup(sys.url, maintainer.token, { path: "free-org" });
    const premiumGroup = await seedGroup(sys.url, sys.adminToken, { path: "paid-org", plan: "premium" });
    await addMember(sys.url, sys.adminToken, "groups", premiumGroup.id, maintainer.user.id, 50);
    free = await seedProject(sys.url, maintainer.token, { path: "app", namespaceId: freeGroup.id });
    const sub = await seedGroup(sys.url, maintainer.token, { path: "team", parentId: premiumGroup.id });
    premium = await seedProject(sys.url, maintainer.token, { path: "svc", namespaceId: sub.id });
    for (const p of [free, premium]) await addMember(sys.url, maintainer.token, "projects", p.id, developer.user.id, 30);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("creates an HTTP Endpoint with its URL and key, inactive by default", async () => {
    const res = await as(maintainer).post(`${base(free)}/http_integrations`, { name: "Datadog Prod" });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ name: "Datadog Prod", type: "http", active: false, payload_example: {}, payload_attribute_mappings: {} });
    expect(res.body.token).toMatch(/^[0-9a-f]{32}$/);
    expect(res.body.endpoint_identifier).toMatch(/^[0-9a-f]{16}$/);
    expect(res.body.url).toBe(`http://localhost:8080/free-org/app/alerts/notify/datadog-prod/${res.body.endpoint_identifier}.json`);
    expect(res.body.created_at).toMatch(ISO_MS);
    const got = await as(maintainer).get(`${base(free)}/http_integrations/${res.body.id}`);
    expect(got.body).toEqual(res.body);
  });
});
