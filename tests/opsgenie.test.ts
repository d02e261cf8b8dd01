import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";
import { rawPost } from "./webhook-client.js";

/**
 * The Opsgenie link integration (issue 5, item 3): Active toggle and API URL, Maintainer+ only,
 * exclusive with every other integration both ways, and the alerts list pointing at Opsgenie.
 */
const OPSGENIE = "https://acme.app.opsgenie.com/alert/list";
const BLOCKED_BY_OTHERS =
  "The Opsgenie integration cannot be enabled while another alert integration is active. Disable the other integrations first.";
const BLOCKED_BY_OPSGENIE =
  "The Opsgenie integration is active: while it is, no other alert integration can be active. Disable it first.";

describe("Opsgenie link integration", () => {
  let sys: RunningSystem;
  let owner: SeededUser;
  let maintainer: SeededUser;
  let developer: SeededUser;
  let project: SeededProject;
  let http: { id: number; url: string; token: string };
  const base = () => `/api/v4/projects/${project.id}/alert_management`;
  const as = (u: SeededUser) => api(sys.url, u.token);
  const putOpsgenie = (body: unknown, u = maintainer) => as(u).put(`${base()}/opsgenie_integration`, body);

  beforeAll(async () => {
    sys = await startSystem();
    owner = await seedUser(sys.url, sys.adminToken, { username: "olive" });
    maintainer = await seedUser(sys.url, sys.adminToken, { username: "max" });
    developer = await seedUser(sys.url, sys.adminToken, { username: "dina" });
    const group = await seedGroup(sys.url, owner.token, { path: "ops" });
    project = await seedProject(sys.url, owner.token, { path: "pager", namespaceId: group.id });
    await addMember(sys.url, owner.token, "projects", project.id, maintainer.user.id, 40);
    await addMember(sys.url, owner.token, "projects", project.id, developer.user.id, 30);
    const created = await as(maintainer).post(`${base()}/http_integrations`, { name: "Generic", active: true });
    expect(created.status, created.text).toBe(201);
    http = created.body;
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("starts inactive with no URL; Developer gets 403, Maintainer and Owner may read and change it", async () => {
    const got = await as(maintainer).get(`${base()}/opsgenie_integration`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ type: "opsgenie", name: "Opsgenie", active: false, api_url: null, url: null, token: null });
    expect((await as(developer).get(`${base()}/opsgenie_integration`)).status).toBe(403);
    const denied = await putOpsgenie({ active: false, api_url: OPSGENIE }, developer);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ message: "403 Forbidden" });
    expect((await putOpsgenie({ api_url: OPSGENIE }, owner)).status).toBe(200);
    expect((await putOpsgenie({ api_url: "" }, maintainer)).body.api_url).toBeNull();
  });

  it("the API URL must be an http(s) URL: each refusal says why, and nothing is saved", async () => {
    const cases: Array<[string, string]> = [
      ["ftp://files.example.com/alerts", "must use http or https, not ftp"],
      ["javascript:alert(1)", "must use http or https, not javascript"],
      ["garbage", "must be a valid http or https URL (e.g. https://app.opsgenie.com/alert/list)"],
      ["/alert/list", "must be a valid http or https URL (e.g. https://app.opsgenie.com/alert/list)"],
      ["https://", "must be a valid http or https URL (e.g. https://app.opsgenie.com/alert/list)"],
      ["https://exa mple.com/list", "must not contain spaces or control characters"],
      ["https://example.com/\nInjected: header", "must not contain spaces or control characters"],
      [`https://example.com/${"a".repeat(2050)}`, "is too long (maximum is 2048 characters)"],
    ];
    for (const [api_url, why] of cases) {
      const res = await putOpsgenie({ active: false, api_url });
      expect(res.status, api_url).toBe(400);
      expect(res.body).toEqual({ message: { api_url: [why] } });
    }
    const noUrl = await putOpsgenie({ active: true });
    expect(noUrl.status).toBe(400);
    expect(noUrl.body).toEqual({ message: { api_url: ["can't be blank"] } });
    expect((await as(maintainer).get(`${base()}/opsgenie_integration`)).body).toMatchObject({ active: false, api_url: null });
  });

  it("cannot be enabled while another integration is active (400 saying why)", async () => {
    const blocked = await putOpsgenie({ active: true, api_url: OPSGENIE });
    expect(blocked.status).toBe(400);
    expect(blocked.body).toEqual({ message: BLOCKED_BY_OTHERS });
    await as(maintainer).put(`${base()}/http_integrations/${http.id}`, { active: false });
    await as(maintainer).put(`${base()}/prometheus_integration`, { active: true });
    expect((await putOpsgenie({ active: true, api_url: OPSGENIE })).body).toEqual({ message: BLOCKED_BY_OTHERS });
    await as(maintainer).put(`${base()}/prometheus_integration`, { active: false });
    expect((await as(maintainer).get(`${base()}/opsgenie_integration`)).body.active).toBe(false);
  });

  it("while active, no other integration can be enabled or created active (400 saying why)", async () => {
    const on = await putOpsgenie({ active: true, api_url: OPSGENIE });
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({ active: true, api_url: OPSGENIE });
    const attempts = [
      await as(maintainer).put(`${base()}/http_integrations/${http.id}`, { active: true }),
      await as(maintainer).put(`${base()}/prometheus_integration`, { active: true }),
      await as(owner).post(`${base()}/http_integrations`, { name: "Second", active: true }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: BLOCKED_BY_OPSGENIE });
    }
    // The disabled integration's URL refuses alerts meanwhile.
    const post = await rawPost(sys.url, new URL(http.url).pathname, '{"title":"x"}', { authorization: `Bearer ${http.token}` });
    expect(post.status).toBe(403);
    // Changes that do not enable anything still work.
    expect((await as(maintainer).put(`${base()}/http_integrations/${http.id}`, { name: "Generic renamed" })).status).toBe(200);
  });

  it("lists every integration with its type and state", async () => {
    const list = await as(maintainer).get(`${base()}/integrations`);
    expect(list.status).toBe(200);
    expect(list.body.map((i: { type: string; active: boolean }) => [i.type, i.active])).toEqual([
      ["http", false],
      ["opsgenie", true],
      ["prometheus", false],
    ]);
    expect((await as(developer).get(`${base()}/integrations`)).status).toBe(403);
  });

  it("the alerts list says alerts are managed in Opsgenie, with the link; not once it is disabled", async () => {
    const listed = await as(developer).get(`${base()}/alerts`);
    expect(listed.status).toBe(200);
    expect(Array.isArray(listed.body)).toBe(true);
    expect(listed.headers.get("x-opsgenie-url")).toBe(OPSGENIE);
    expect(listed.headers.get("x-alert-management-notice")).toBe(
      `Alerts are managed in Opsgenie while its integration is active: ${OPSGENIE}`,
    );
    const idn = await putOpsgenie({ api_url: "https://bücher.example/alert/list" });
    expect(idn.status, idn.text).toBe(200);
    const encoded = await as(developer).get(`${base()}/alerts`);
    expect(encoded.headers.get("x-opsgenie-url")).toBe("https://xn--bcher-kva.example/alert/list");
    expect((await putOpsgenie({ active: false })).body).toMatchObject({ active: false });
    const after = await as(developer).get(`${base()}/alerts`);
    expect(after.headers.get("x-opsgenie-url")).toBeNull();
    expect(after.headers.get("x-alert-management-notice")).toBeNull();
    expect((await as(maintainer).put(`${base()}/http_integrations/${http.id}`, { active: true })).status).toBe(200);
  });
});
