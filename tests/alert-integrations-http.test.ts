import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, startIntegrationsSystem } from "./alert-integrations.fixtures.js";
import { api } from "./api.js";
import type { RunningSystem } from "./harness.js";
import { type SeededProject, type SeededUser, seedGroup, seedProject } from "./seed.js";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Alert integration management through the public REST API (PRODUCT.md section 4): real gateway,
 * real gRPC, real auth-service keys. HTTP Endpoints: creation, the list of every type, roles, the
 * Free and Premium limits, validation, update, key reset and deletion, a path as :id, racing
 * creates. Custom mapping, payload fields, Prometheus and Opsgenie:
 * tests/alert-integrations-mapping-prometheus-opsgenie.test.ts.
 */
describe("alert integrations, end to end", () => {
  let sys: RunningSystem;
  let maintainer: SeededUser;
  let developer: SeededUser;
  let stranger: SeededUser;
  let free: SeededProject;
  let premium: SeededProject;
  const as = (u: SeededUser) => api(sys.url, u.token);

  beforeAll(async () => {
    ({ sys, maintainer, developer, stranger, free, premium } = await startIntegrationsSystem());
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("creates an HTTP Endpoint with its URL and key, inactive by default", async () => {
    const res = await as(maintainer).post(`${base(free)}/http_integrations`, { name: "Datadog Prod" });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      name: "Datadog Prod",
      type: "http",
      active: false,
      payload_example: {},
      payload_attribute_mappings: {},
    });
    expect(res.body.token).toMatch(/^[0-9a-f]{32}$/);
    expect(res.body.endpoint_identifier).toMatch(/^[0-9a-f]{16}$/);
    expect(res.body.url).toBe(
      `http://localhost:8080/free-org/app/alerts/notify/datadog-prod/${res.body.endpoint_identifier}.json`,
    );
    expect(res.body.created_at).toMatch(ISO_MS);
    const got = await as(maintainer).get(`${base(free)}/http_integrations/${res.body.id}`);
    expect(got.body).toEqual(res.body);
  });

  it("shows every integration of every type, oldest first, to maintainers", async () => {
    const http = await as(maintainer).post(`${base(premium)}/http_integrations`, { name: "First", active: true });
    await as(maintainer).get(`${base(premium)}/prometheus_integration`);
    await as(maintainer).get(`${base(premium)}/opsgenie_integration`);
    const list = await as(maintainer).get(`${base(premium)}/integrations`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual(
      expect.arrayContaining([
        { id: http.body.id, name: "First", type: "http", active: true, rate_limit_per_minute: 6000 },
        { id: expect.any(Number), name: "Prometheus", type: "prometheus", active: false, rate_limit_per_minute: 6000 },
        { id: expect.any(Number), name: "Opsgenie", type: "opsgenie", active: false },
      ]),
    );
    expect(list.body.map((i: { id: number }) => i.id)).toEqual(
      [...list.body.map((i: { id: number }) => i.id)].sort((a, b) => a - b),
    );
  });

  it("applies the roles: developers 403, non-members 404, anonymous 401", async () => {
    const paths = ["integrations", "prometheus_integration", "opsgenie_integration"];
    for (const p of paths) {
      expect((await as(developer).get(`${base(free)}/${p}`)).body).toEqual({ message: "403 Forbidden" });
      const hidden = await as(stranger).get(`${base(free)}/${p}`);
      expect(hidden.status).toBe(404);
      expect(hidden.body).toEqual({ message: "404 Project Not Found" });
      expect((await api(sys.url).get(`${base(free)}/${p}`)).status).toBe(401);
    }
    expect((await as(developer).post(`${base(free)}/http_integrations`, { name: "x" })).status).toBe(403);
    expect((await as(stranger).post(`${base(free)}/http_integrations`, { name: "x" })).status).toBe(404);
    expect((await as(maintainer).get(`/api/v4/projects/999999/alert_management/integrations`)).status).toBe(404);
  });

  it("Free: one HTTP integration; a second is refused with GitLab's message", async () => {
    const res = await as(maintainer).post(`${base(free)}/http_integrations`, { name: "Another" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: "Multiple integrations of a single type are not supported for this project" });
  });

  it("Free: no custom mapping or payload fields", async () => {
    const p = await seedProject(sys.url, maintainer.token, {
      path: "free-two",
      namespaceId: (await seedGroup(sys.url, maintainer.token, { path: "free-org-2" })).id,
    });
    const res = await as(maintainer).post(`${base(p)}/http_integrations`, { name: "Mapped", payload_example: { a: "b" } });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/Premium/);
    const fields = await as(maintainer).post(`${base(p)}/payload_fields`, { payload_example: { a: "b" } });
    expect(fields.status).toBe(403);
  });

  it("Premium: several uniquely named HTTP integrations", async () => {
    const a = await as(maintainer).post(`${base(premium)}/http_integrations`, { name: "Grafana" });
    const b = await as(maintainer).post(`${base(premium)}/http_integrations`, { name: "Datadog" });
    expect([a.status, b.status]).toEqual([201, 201]);
    const dup = await as(maintainer).post(`${base(premium)}/http_integrations`, { name: "grafana" });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ message: { name: ["has already been taken"] } });
    const rename = await as(maintainer).put(`${base(premium)}/http_integrations/${b.body.id}`, { name: "GRAFANA" });
    expect(rename.status).toBe(409);
  });

  it("validates names and refuses issued fields", async () => {
    expect((await as(maintainer).post(`${base(premium)}/http_integrations`, {})).body).toEqual({ error: "name is missing" });
    expect((await as(maintainer).post(`${base(premium)}/http_integrations`, { name: "  " })).body).toEqual({
      message: { name: ["can't be blank"] },
    });
    const long = await as(maintainer).post(`${base(premium)}/http_integrations`, { name: "x".repeat(256) });
    expect(long.status).toBe(400);
    const created = await as(maintainer).post(`${base(premium)}/http_integrations`, { name: "Fixed" });
    for (const field of ["token", "endpoint_identifier"]) {
      const res = await as(maintainer).put(`${base(premium)}/http_integrations/${created.body.id}`, {
        [field]: "0123456789abcdef",
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`${field} cannot be set`));
    }
    expect((await as(maintainer).get(`${base(premium)}/http_integrations/${created.body.id}`)).body.token).toBe(
      created.body.token,
    );
    expect((await as(maintainer).get(`${base(premium)}/http_integrations/abc`)).body).toEqual({
      error: "integration_id is invalid",
    });
    expect((await as(maintainer).get(`${base(premium)}/http_integrations/99999`)).status).toBe(404);
    // Another project's integration id is not found through this project.
    const freeList = await as(maintainer).get(`${base(free)}/integrations`);
    expect((await as(maintainer).get(`${base(premium)}/http_integrations/${freeList.body[0].id}`)).status).toBe(404);
  });

  it("updates, resets the key and deletes", async () => {
    const c = await as(maintainer).post(`${base(premium)}/http_integrations`, { name: "Lifecycle" });
    const u = await as(maintainer).put(`${base(premium)}/http_integrations/${c.body.id}`, { name: "Life Cycle", active: true });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({
      name: "Life Cycle",
      active: true,
      token: c.body.token,
      endpoint_identifier: c.body.endpoint_identifier,
    });
    expect(u.body.url).toMatch(/\/alerts\/notify\/life-cycle\//);
    const r = await as(maintainer).post(`${base(premium)}/http_integrations/${c.body.id}/reset_token`);
    expect(r.status).toBe(200);
    expect(r.body.token).toMatch(/^[0-9a-f]{32}$/);
    expect(r.body.token).not.toBe(c.body.token);
    expect(r.body.endpoint_identifier).toBe(c.body.endpoint_identifier);
    expect((await as(maintainer).del(`${base(premium)}/http_integrations/${c.body.id}`)).status).toBe(204);
    expect((await as(maintainer).get(`${base(premium)}/http_integrations/${c.body.id}`)).status).toBe(404);
    expect((await as(maintainer).del(`${base(premium)}/http_integrations/${c.body.id}`)).status).toBe(404);
  });

  it("accepts a URL-encoded full path as :id", async () => {
    const res = await as(maintainer).get(`/api/v4/projects/${encodeURIComponent("free-org/app")}/alert_management/integrations`);
    expect(res.status).toBe(200);
    expect(res.body[0]).toMatchObject({ type: "http", name: "Datadog Prod" });
  });

  it("Free: racing creates still leave exactly one HTTP integration", async () => {
    const g = await seedGroup(sys.url, maintainer.token, { path: "race-org" });
    const p = await seedProject(sys.url, maintainer.token, { path: "race", namespaceId: g.id });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => as(maintainer).post(`${base(p)}/http_integrations`, { name: `Racer ${i}` })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 403)).toHaveLength(7);
    const list = await as(maintainer).get(`${base(p)}/integrations`);
    expect(list.body).toHaveLength(1);
    const prom = await Promise.all(Array.from({ length: 5 }, () => as(maintainer).get(`${base(p)}/prometheus_integration`)));
    expect(new Set(prom.map((r) => r.body.id)).size).toBe(1);
  });
});
