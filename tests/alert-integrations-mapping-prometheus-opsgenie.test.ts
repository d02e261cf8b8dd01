import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, startIntegrationsSystem } from "./alert-integrations.fixtures.js";
import { api } from "./api.js";
import type { RunningSystem } from "./harness.js";
import { addMember, type SeededProject, type SeededUser, seedGroup, seedProject } from "./seed.js";

/**
 * Alert integration management through the public REST API (PRODUCT.md section 4): real gateway,
 * real gRPC, real auth-service keys. Custom mapping (Premium), payload fields, the Prometheus
 * integration and the Opsgenie one. HTTP Endpoints, roles and tier limits:
 * tests/alert-integrations-http.test.ts.
 */
describe("alert integrations, end to end", () => {
  let sys: RunningSystem;
  let maintainer: SeededUser;
  let developer: SeededUser;
  let free: SeededProject;
  let premium: SeededProject;
  const as = (u: SeededUser) => api(sys.url, u.token);

  beforeAll(async () => {
    ({ sys, maintainer, developer, free, premium } = await startIntegrationsSystem());
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("custom mapping (Premium): sample payload, mapping, and the mapping cleared by a new sample", async () => {
    const example = { alert: { name: "Disk", started: "2026-11-21T10:00:00Z", hosts: ["a", "b"] }, level: 3 };
    const mapping = {
      title: { path: ["alert", "name"], type: "string" },
      start_time: { path: ["alert", "started"], type: "datetime" },
    };
    const c = await as(maintainer).post(`${base(premium)}/http_integrations`, {
      name: "Mapped",
      payload_example: example,
      payload_attribute_mappings: mapping,
    });
    expect(c.status, c.text).toBe(201);
    expect(c.body.payload_example).toEqual(example);
    expect(c.body.payload_attribute_mappings).toEqual(mapping);
    const same = await as(maintainer).put(`${base(premium)}/http_integrations/${c.body.id}`, {
      payload_example: JSON.stringify(example),
    });
    expect(same.body.mapping_cleared).toBeUndefined();
    expect(same.body.payload_attribute_mappings).toEqual(mapping);
    const changed = await as(maintainer).put(`${base(premium)}/http_integrations/${c.body.id}`, {
      payload_example: { other: "x" },
    });
    expect(changed.body).toMatchObject({
      mapping_cleared: true,
      payload_attribute_mappings: {},
      payload_example: { other: "x" },
    });
    const bad = [
      [{ nope: { path: ["a"], type: "string" } }, /unknown alert field 'nope'/],
      [{ title: { path: [], type: "string" } }, /path/],
      [{ title: { path: ["a"], type: "number" } }, /type/],
      [{ title: { path: ["a"], type: "string", extra: 1 } }, /unknown properties: extra/],
      ["not json", /valid JSON/],
    ] as const;
    for (const [value, message] of bad) {
      const res = await as(maintainer).put(`${base(premium)}/http_integrations/${c.body.id}`, {
        payload_attribute_mappings: value,
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    for (const value of ["[1]", "{", `{"a":${"[".repeat(101)}${"]".repeat(101)}}`]) {
      const res = await as(maintainer).put(`${base(premium)}/http_integrations/${c.body.id}`, { payload_example: value });
      expect(res.status, value.slice(0, 10)).toBe(400);
    }
  });

  it("payload fields: strings, datetimes and arrays with their elements", async () => {
    const payload_example = {
      title: "x",
      started: "2026-11-21T10:00:00Z",
      count: 3,
      flag: true,
      nothing: null,
      nested: { deep: { key: "v" } },
      arr: [{ key_b: ["x"] }, "s", [["y"]]],
    };
    const res = await as(maintainer).post(`${base(premium)}/payload_fields`, {
      payload_example: JSON.stringify(payload_example),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual([
      { path: ["title"], label: "title", type: "string" },
      { path: ["started"], label: "started", type: "datetime" },
      { path: ["nested", "deep", "key"], label: "nested/deep/key", type: "string" },
      { path: ["arr"], label: "arr", type: "array" },
      { path: ["arr", 0, "key_b"], label: "arr[0]/key_b", type: "array" },
      { path: ["arr", 0, "key_b", 0], label: "arr[0]/key_b[0]", type: "string" },
      { path: ["arr", 1], label: "arr[1]", type: "string" },
      { path: ["arr", 2], label: "arr[2]", type: "array" },
      { path: ["arr", 2, 0], label: "arr[2][0]", type: "array" },
      { path: ["arr", 2, 0, 0], label: "arr[2][0][0]", type: "string" },
    ]);
    expect((await as(maintainer).post(`${base(premium)}/payload_fields`, {})).body).toEqual({
      error: "payload_example is missing",
    });
    expect((await as(maintainer).post(`${base(premium)}/payload_fields`, { payload_example: "[]" })).status).toBe(400);
    expect((await as(developer).post(`${base(premium)}/payload_fields`, { payload_example: "{}" })).status).toBe(403);
  });

  it("prometheus: one per project, created inactive, with its own URL and key", async () => {
    const g = await as(maintainer).get(`${base(free)}/prometheus_integration`);
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({
      type: "prometheus",
      name: "Prometheus",
      active: false,
      url: "http://localhost:8080/free-org/app/prometheus/alerts/notify.json",
    });
    expect(g.body.token).toMatch(/^[0-9a-f]{32}$/);
    const again = await as(maintainer).get(`${base(free)}/prometheus_integration`);
    expect(again.body.id).toBe(g.body.id);
    const u = await as(maintainer).put(`${base(free)}/prometheus_integration`, {
      active: true,
      api_url: "https://prom.example.com",
    });
    expect(u.body).toMatchObject({ active: true, api_url: "https://prom.example.com", token: g.body.token });
    expect((await as(maintainer).put(`${base(free)}/prometheus_integration`, { api_url: "ftp://x" })).status).toBe(400);
    const r = await as(maintainer).post(`${base(free)}/prometheus_integration/reset_token`);
    expect(r.body.token).not.toBe(g.body.token);
    expect((await as(developer).get(`${base(free)}/prometheus_integration`)).status).toBe(403);
  });

  it("opsgenie: needs an http(s) URL, and excludes every other active integration both ways", async () => {
    const g = await seedGroup(sys.url, sys.adminToken, { path: "ops-org", plan: "premium" });
    await addMember(sys.url, sys.adminToken, "groups", g.id, maintainer.user.id, 40);
    const p = await seedProject(sys.url, maintainer.token, { path: "ops", namespaceId: g.id });
    const http = await as(maintainer).post(`${base(p)}/http_integrations`, { name: "Active one", active: true });
    expect((await as(maintainer).get(`${base(p)}/opsgenie_integration`)).body).toMatchObject({
      type: "opsgenie",
      active: false,
      api_url: null,
      url: null,
      token: null,
    });
    expect((await as(maintainer).put(`${base(p)}/opsgenie_integration`, { active: true })).status).toBe(400);
    expect((await as(maintainer).put(`${base(p)}/opsgenie_integration`, { active: true, api_url: "not a url" })).status).toBe(
      400,
    );
    const blocked = await as(maintainer).put(`${base(p)}/opsgenie_integration`, {
      active: true,
      api_url: "https://app.opsgenie.com/alert/list",
    });
    expect(blocked.status).toBe(400);
    expect(blocked.body.message).toMatch(/another alert integration is active/);
    await as(maintainer).put(`${base(p)}/http_integrations/${http.body.id}`, { active: false });
    const on = await as(maintainer).put(`${base(p)}/opsgenie_integration`, {
      active: true,
      api_url: "https://app.opsgenie.com/alert/list",
    });
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({ active: true, api_url: "https://app.opsgenie.com/alert/list" });
    const enable = await as(maintainer).put(`${base(p)}/http_integrations/${http.body.id}`, { active: true });
    expect(enable.status).toBe(400);
    expect(enable.body.message).toMatch(/Opsgenie integration is active/);
    expect((await as(maintainer).post(`${base(p)}/http_integrations`, { name: "New active", active: true })).status).toBe(400);
    expect((await as(maintainer).put(`${base(p)}/prometheus_integration`, { active: true })).status).toBe(400);
    expect((await as(maintainer).post(`${base(p)}/http_integrations`, { name: "New inactive" })).status).toBe(201);
  });
});
