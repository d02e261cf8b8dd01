import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";

/**
 * Custom mapping rules over REST (issue 5, item 1): the sample payload, `POST /payload_fields`
 * (the reference's extractor, reference 6.4), mapping validation (reference 6.1/6.2), clearing,
 * and the Free tier.
 */
const MIB = 1024 * 1024;
/** `{"a":[[...]]}` nested `depth` levels in all. */
const nested = (depth: number) => `{"a":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;

/** A sample with every kind of value the extractor meets. */
const SAMPLE = {
  title: "Disk full",
  started: "2026-11-20T10:00:00Z",
  build: "1999-final",
  short: "123",
  count: 3,
  ratio: 0.5,
  ok: true,
  off: false,
  nothing: null,
  empty_obj: {},
  empty_arr: [],
  nested: { deep: { key: "v", num: 1, flag: false }, list: ["a", 2, null, { k: "w" }] },
  arr: [{ key_b: ["x"] }, "s", [["y"]], 5],
  "with space/and slash": "odd key",
};

/** Reference 6.4: depth first, document order; arrays then their elements; strings only. */
const SAMPLE_FIELDS = [
  { path: ["title"], label: "title", type: "string" },
  { path: ["started"], label: "started", type: "datetime" },
  { path: ["build"], label: "build", type: "datetime" },
  { path: ["short"], label: "short", type: "string" },
  { path: ["empty_arr"], label: "empty_arr", type: "array" },
  { path: ["nested", "deep", "key"], label: "nested/deep/key", type: "string" },
  { path: ["nested", "list"], label: "nested/list", type: "array" },
  { path: ["nested", "list", 0], label: "nested/list[0]", type: "string" },
  { path: ["nested", "list", 3, "k"], label: "nested/list[3]/k", type: "string" },
  { path: ["arr"], label: "arr", type: "array" },
  { path: ["arr", 0, "key_b"], label: "arr[0]/key_b", type: "array" },
  { path: ["arr", 0, "key_b", 0], label: "arr[0]/key_b[0]", type: "string" },
  { path: ["arr", 1], label: "arr[1]", type: "string" },
  { path: ["arr", 2], label: "arr[2]", type: "array" },
  { path: ["arr", 2, 0], label: "arr[2][0]", type: "array" },
  { path: ["arr", 2, 0, 0], label: "arr[2][0][0]", type: "string" },
  { path: ["with space/and slash"], label: "with space/and slash", type: "string" },
];

describe("custom mapping rules over REST", () => {
  let sys: RunningSystem;
  let maintainer: SeededUser;
  let developer: SeededUser;
  let premium: SeededProject;
  let free: SeededProject;
  let integrationId = 0;
  const base = (p: SeededProject) => `/api/v4/projects/${p.id}/alert_management`;
  const as = (u: SeededUser) => api(sys.url, u.token);

  beforeAll(async () => {
    sys = await startSystem();
    maintainer = await seedUser(sys.url, sys.adminToken, { username: "maya" });
    developer = await seedUser(sys.url, sys.adminToken, { username: "devon" });
    const paid = await seedGroup(sys.url, sys.adminToken, { path: "paid", plan: "premium" });
    await addMember(sys.url, sys.adminToken, "groups", paid.id, maintainer.user.id, 40);
    premium = await seedProject(sys.url, maintainer.token, { path: "app", namespaceId: paid.id });
    const freeGroup = await seedGroup(sys.url, maintainer.token, { path: "gratis" });
    free = await seedProject(sys.url, maintainer.token, { path: "app", namespaceId: freeGroup.id });
    for (const p of [premium, free]) await addMember(sys.url, maintainer.token, "projects", p.id, developer.user.id, 30);
    const created = await as(maintainer).post(`${base(premium)}/http_integrations`, {
      name: "Monitor",
      payload_example: { alert: { name: "x", at: "2026-11-20T10:00:00Z" } },
      payload_attribute_mappings: { title: { path: ["alert", "name"], type: "string" } },
    });
    expect(created.status, created.text).toBe(201);
    integrationId = created.body.id;
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const current = async () => (await as(maintainer).get(`${base(premium)}/http_integrations/${integrationId}`)).body;

  it("payload_fields: the reference's extractor on nested objects and arrays, as text or object", async () => {
    const asText = await as(maintainer).post(`${base(premium)}/payload_fields`, { payload_example: JSON.stringify(SAMPLE) });
    expect(asText.status, asText.text).toBe(200);
    expect(asText.body).toEqual(SAMPLE_FIELDS);
    const asObject = await as(maintainer).post(`${base(premium)}/payload_fields`, { payload_example: SAMPLE });
    expect(asObject.body).toEqual(SAMPLE_FIELDS);
    expect((await as(maintainer).post(`${base(premium)}/payload_fields`, { payload_example: {} })).body).toEqual([]);
    expect((await as(maintainer).post(`${base(premium)}/payload_fields`, { payload_example: nested(100) })).status).toBe(200);
  });

  it("payload_fields: bad samples get a 400 naming the problem; roles and tier apply", async () => {
    const cases: Array<[unknown, string]> = [
      ["{", "payload_example must be valid JSON"],
      ["[1,2]", "payload_example must be a JSON object, not an array"],
      [[1, 2], "payload_example must be a JSON object, not an array"],
      ['"text"', "payload_example must be a JSON object, not a string"],
      ["null", "payload_example must be a JSON object, not null"],
      [nested(101), "payload_example is nested too deeply: at most 100 levels"],
      [JSON.stringify({ blob: "x".repeat(MIB) }), "payload_example is too big: at most 1 MiB of JSON"],
      [{ blob: "x".repeat(MIB) }, "payload_example is too big: at most 1 MiB of JSON"],
    ];
    for (const [payload_example, message] of cases) {
      const res = await as(maintainer).post(`${base(premium)}/payload_fields`, { payload_example });
      expect(res.status, message).toBe(400);
      expect(res.body).toEqual({ message });
    }
    expect((await as(maintainer).post(`${base(premium)}/payload_fields`, {})).body).toEqual({
      error: "payload_example is missing",
    });
    expect((await as(developer).post(`${base(premium)}/payload_fields`, { payload_example: "{}" })).status).toBe(403);
    const onFree = await as(maintainer).post(`${base(free)}/payload_fields`, { payload_example: '{"a":"b"}' });
    expect(onFree.status).toBe(403);
    expect(onFree.body).toEqual({
      message: "Custom mapping and payload fields are available in the Premium and Ultimate tiers only",
    });
  });

  it("payload_example on an integration: refused samples leave everything as it was", async () => {
    const before = await current();
    const cases: Array<[unknown, RegExp]> = [
      ["not json", /must be valid JSON/],
      ["[]", /not an array/],
      [nested(101), /nested too deeply/],
      [{ blob: "x".repeat(MIB + 10) }, /too big/],
    ];
    for (const [payload_example, message] of cases) {
      const res = await as(maintainer).put(`${base(premium)}/http_integrations/${integrationId}`, {
        name: "Renamed in the same request",
        payload_example,
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect(await current()).toEqual(before);
    const list = (await as(maintainer).get(`${base(premium)}/integrations`)).body;
    const create = await as(maintainer).post(`${base(premium)}/http_integrations`, { name: "Never", payload_example: "[" });
    expect(create.status).toBe(400);
    expect((await as(maintainer).get(`${base(premium)}/integrations`)).body).toEqual(list);
  });

  it("payload_attribute_mappings: every malformed mapping gets a 400 naming the problem; nothing is half-saved", async () => {
    const before = await current();
    const cases: Array<[unknown, RegExp]> = [
      [{ nope: { path: ["a"], type: "string" } }, /unknown alert field 'nope' \(known: title, description, start_time/],
      [{ title: "alert.name" }, /entry for 'title' must be an object with path and type/],
      [{ title: { path: "alert.name", type: "string" } }, /entry for 'title' needs a path: a non-empty array/],
      [{ title: { path: [], type: "string" } }, /needs a path/],
      [{ title: { path: ["a", { b: 1 }], type: "string" } }, /needs a path/],
      [{ title: { path: ["a", 1.5], type: "string" } }, /needs a path/],
      [{ title: { path: ["a", -1], type: "string" } }, /needs a path/],
      [{ title: { path: ["a", null], type: "string" } }, /needs a path/],
      [{ title: { type: "string" } }, /needs a path/],
      [{ title: { path: ["a"] } }, /type null; allowed for title: string/],
      [{ title: { path: ["a"], type: "number" } }, /type "number"; allowed for title: string/],
      [{ title: { path: ["a"], type: "array" } }, /type "array"; allowed for title: string/],
      [{ title: { path: ["a"], type: "datetime" } }, /allowed for title: string \(text that starts with four digits/],
      [{ start_time: { path: ["a"], type: "string" } }, /allowed for start_time: datetime/],
      [{ end_time: { path: ["a"], type: "array" } }, /allowed for end_time: datetime/],
      [{ severity: { path: ["a"], type: "array" } }, /allowed for severity: string/],
      [{ hosts: { path: ["a"], type: "datetime" } }, /allowed for hosts: string, array/],
      [{ title: { path: ["a"], type: "string", extra: 1 } }, /entry for 'title' has unknown properties: extra/],
      [{ title: { path: ["a"], type: "string", field_name: "title" } }, /unknown properties: field_name/],
      [{ title: { path: ["a"], type: "string", label: 5 } }, /label that is not a string/],
      [[{ path: ["a"], type: "string" }], /item 0 must be an object with field_name, path and type/],
      [
        [
          { field_name: "title", path: ["a"], type: "string" },
          { fieldName: "TITLE", path: ["b"], type: "STRING" },
        ],
        /maps 'title' twice/,
      ],
      ["not json", /payload_attribute_mappings must be valid JSON/],
      [42, /invalid/],
      ["42", /must be an object of alert field to \{path, type\}/],
    ];
    for (const [mapping, message] of cases) {
      const res = await as(maintainer).put(`${base(premium)}/http_integrations/${integrationId}`, {
        payload_example: { other: "sample" },
        payload_attribute_mappings: mapping,
      });
      expect(res.status, JSON.stringify(mapping)).toBe(400);
      expect(String(res.body.message ?? res.body.error), JSON.stringify(mapping)).toMatch(message);
    }
    expect(await current()).toEqual(before);
  });

  it("accepts every field with each of its allowed types, and GitLab's array form", async () => {
    const all = {
      title: { path: ["a", 0, "t"], type: "string", label: "a[0]/t" },
      description: { path: ["d"], type: "string" },
      start_time: { path: ["s"], type: "datetime" },
      end_time: { path: ["e"], type: "datetime" },
      service: { path: ["svc"], type: "string" },
      monitoring_tool: { path: ["tool"], type: "string" },
      hosts: { path: ["h"], type: "array" },
      severity: { path: ["sev"], type: "string" },
      fingerprint: { path: ["f"], type: "array" },
      platform_environment_name: { path: ["env"], type: "string" },
    };
    const put = (mapping: unknown) =>
      as(maintainer).put(`${base(premium)}/http_integrations/${integrationId}`, { payload_attribute_mappings: mapping });
    const res = await put(all);
    expect(res.status, res.text).toBe(200);
    expect(res.body.payload_attribute_mappings).toEqual(all);
    expect((await put({ hosts: { path: ["h"], type: "string" }, fingerprint: { path: ["f"], type: "string" } })).status).toBe(
      200,
    );
    const gitlab = await put([
      { fieldName: "TITLE", path: ["alert", "name"], type: "STRING", label: "alert/name" },
      { field_name: "gitlab_environment_name", path: ["env"], type: "string" },
    ]);
    expect(gitlab.status, gitlab.text).toBe(200);
    expect(gitlab.body.payload_attribute_mappings).toEqual({
      title: { path: ["alert", "name"], type: "string", label: "alert/name" },
      platform_environment_name: { path: ["env"], type: "string" },
    });
    const cleared = await put(null);
    expect(cleared.body.payload_attribute_mappings).toEqual({});
  });

  it("a changed payload_example clears the mapping and the answer says so", async () => {
    const mapping = { title: { path: ["alert", "name"], type: "string" } };
    const example = { alert: { name: "x" } };
    const set = await as(maintainer).put(`${base(premium)}/http_integrations/${integrationId}`, {
      payload_example: example,
      payload_attribute_mappings: mapping,
    });
    expect(set.body.mapping_cleared).toBeUndefined();
    const same = await as(maintainer).put(`${base(premium)}/http_integrations/${integrationId}`, {
      payload_example: JSON.stringify(example),
    });
    expect(same.body).not.toHaveProperty("mapping_cleared");
    expect(same.body.payload_attribute_mappings).toEqual(mapping);
    const changed = await as(maintainer).put(`${base(premium)}/http_integrations/${integrationId}`, {
      payload_example: { alert: { title: "y" } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      mapping_cleared: true,
      payload_attribute_mappings: {},
      payload_example: { alert: { title: "y" } },
    });
    expect((await current()).payload_attribute_mappings).toEqual({});
    // A new sample that brings its own mapping keeps it.
    const both = await as(maintainer).put(`${base(premium)}/http_integrations/${integrationId}`, {
      payload_example: { alert: { name: "z" } },
      payload_attribute_mappings: mapping,
    });
    expect(both.body).not.toHaveProperty("mapping_cleared");
    expect(both.body.payload_attribute_mappings).toEqual(mapping);
  });

  it("Free: mapping and a sample are refused with 403 and a clear message; an empty sample is fine", async () => {
    const message = "Custom mapping and payload fields are available in the Premium and Ultimate tiers only";
    const withMapping = await as(maintainer).post(`${base(free)}/http_integrations`, {
      name: "Free one",
      payload_attribute_mappings: { title: { path: ["a"], type: "string" } },
    });
    expect(withMapping.status).toBe(403);
    expect(withMapping.body).toEqual({ message });
    const withSample = await as(maintainer).post(`${base(free)}/http_integrations`, {
      name: "Free one",
      payload_example: { a: "b" },
    });
    expect(withSample.status).toBe(403);
    const plain = await as(maintainer).post(`${base(free)}/http_integrations`, { name: "Free one", payload_example: {} });
    expect(plain.status, plain.text).toBe(201);
    const update = await as(maintainer).put(`${base(free)}/http_integrations/${plain.body.id}`, {
      payload_attribute_mappings: { title: { path: ["a"], type: "string" } },
    });
    expect(update.status).toBe(403);
    expect(update.body).toEqual({ message });
  });

  it("only Maintainer and above manage mappings", async () => {
    const res = await as(developer).put(`${base(premium)}/http_integrations/${integrationId}`, {
      payload_attribute_mappings: { title: { path: ["a"], type: "string" } },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: "403 Forbidden" });
  });
});
