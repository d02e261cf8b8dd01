import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";

const mongoUrl = inject("mongoUrl");
const backends: Array<[string, Record<string, string>]> = [["embedded store", {}]];
if (mongoUrl) backends.push(["MongoDB", { MONGO_URL: mongoUrl }]);
else console.warn("[console-lists] no MongoDB-protocol server: the MongoDB variant is SKIPPED");

const paths = (body: Array<{ path_with_namespace?: string; full_path?: string }>) =>
  body.map((x) => x.path_with_namespace ?? x.full_path);

/**
 * The lists the console reads (PRODUCT.md section 8): what each caller can see, with GitLab's
 * paging headers, over real HTTP and gRPC.
 *
 * acme (premium; owner: olga; dave Developer) ─ acme/platform (subgroup) ─ acme/platform/api
 *                                             └ acme/web
 * solo (free; owner: sam) ─ solo/tool (dave Maintainer on the project only)
 * olga/scratch (personal)
 */
describe.each(backends)("console lists, end to end (%s)", (_name, env) => {
  let system: RunningSystem;
  let url = "";
  let olga: SeededUser;
  let sam: SeededUser;
  let dave: SeededUser;
  let nobody: SeededUser;

  beforeAll(async () => {
    system = await startSystem({ env });
    url = system.url;
    const admin = system.adminToken;
    const seed = (username: string) => seedUser(url, admin, { username });
    [olga, sam, dave, nobody] = [await seed("olga"), await seed("sam"), await seed("dave"), await seed("nobody")];
    const acme = await seedGroup(url, olga.token, { path: "acme" });
    await api(url, admin).put(`/api/v4/namespaces/${acme.id}`, { plan: "premium" });
    const platform = await seedGroup(url, olga.token, { path: "platform", parentId: acme.id });
    await seedProject(url, olga.token, { path: "web", namespaceId: acme.id });
    await seedProject(url, olga.token, { path: "api", namespaceId: platform.id });
    await seedProject(url, olga.token, { path: "scratch" });
    const solo = await seedGroup(url, sam.token, { path: "solo" });
    const tool = await seedProject(url, sam.token, { path: "tool", namespaceId: solo.id });
    await addMember(url, olga.token, "groups", acme.id, dave.user.id, 30);
    await addMember(url, sam.token, "projects", tool.id, dave.user.id, 40);
  });
  afterAll(async () => {
    await system?.stop();
  });

  it("lists the projects a user can see, newest first, with tier and effective access", async () => {
    const res = await api(url, dave.token).get("/api/v4/projects");
    expect(res.status).toBe(200);
    expect(paths(res.body)).toEqual(["solo/tool", "acme/platform/api", "acme/web"]);
    const [tool, apiProject] = res.body;
    expect(tool).toMatchObject({
      name: "tool",
      path: "tool",
      namespace: { full_path: "solo", kind: "group" },
      tier: "free",
      permissions: { project_access: { access_level: 40 }, group_access: null },
    });
    expect(apiProject).toMatchObject({ tier: "premium", permissions: { project_access: { access_level: 30 } } });
    expect(res.headers.get("x-total")).toBe("3");
    expect(paths((await api(url, olga.token).get("/api/v4/projects")).body)).toEqual([
      "olga/scratch",
      "acme/platform/api",
      "acme/web",
    ]);
    expect((await api(url, nobody.token).get("/api/v4/projects")).body).toEqual([]);
  });

  it("searches and pages with GitLab's headers", async () => {
    const search = await api(url, dave.token).get("/api/v4/projects?search=API");
    expect(paths(search.body)).toEqual(["acme/platform/api"]);
    const page2 = await api(url, dave.token).get("/api/v4/projects?per_page=2&page=2");
    expect(paths(page2.body)).toEqual(["acme/web"]);
    expect(
      Object.fromEntries(
        ["x-total", "x-total-pages", "x-page", "x-per-page", "x-next-page", "x-prev-page"].map((h) => [h, page2.headers.get(h)]),
      ),
    ).toEqual({
      "x-total": "3",
      "x-total-pages": "2",
      "x-page": "2",
      "x-per-page": "2",
      "x-next-page": "",
      "x-prev-page": "1",
    });
    expect(page2.headers.get("link")).toContain('rel="prev"');
  });

  it("shows admins every project, or only their own with membership=true", async () => {
    const all = await api(url, system.adminToken).get("/api/v4/projects?per_page=100");
    expect(paths(all.body)).toEqual(["solo/tool", "olga/scratch", "acme/platform/api", "acme/web"]);
    expect(all.body[0].permissions.project_access.access_level).toBe(50);
    expect((await api(url, system.adminToken).get("/api/v4/projects?membership=true")).body).toEqual([]);
  });

  it("lists groups by full path with their plans", async () => {
    const res = await api(url, dave.token).get("/api/v4/groups");
    expect(res.status).toBe(200);
    expect(paths(res.body)).toEqual(["acme", "acme/platform"]);
    expect(res.body[1]).toMatchObject({ full_path: "acme/platform", plan: "premium", parent_id: res.body[0].id });
    expect(paths((await api(url, system.adminToken).get("/api/v4/groups?search=o")).body)).toEqual(["acme/platform", "solo"]);
    expect((await api(url, nobody.token).get("/api/v4/groups")).body).toEqual([]);
  });

  it("lists every member of a project and a group with the effective level", async () => {
    const project = await api(url, dave.token).get(`/api/v4/projects/${encodeURIComponent("acme/platform/api")}/members/all`);
    expect(project.status).toBe(200);
    expect(project.body.map((m: { username: string; access_level: number }) => [m.username, m.access_level])).toEqual([
      ["olga", 50],
      ["dave", 30],
    ]);
    expect(project.headers.get("x-total")).toBe("2");
    const group = await api(url, dave.token).get(`/api/v4/groups/${encodeURIComponent("acme/platform")}/members/all`);
    expect(group.body.map((m: { username: string }) => m.username)).toEqual(["olga", "dave"]);
    expect((await api(url, nobody.token).get(`/api/v4/groups/acme/members/all`)).status).toBe(404);
    expect((await api(url, nobody.token).get(`/api/v4/projects/${encodeURIComponent("solo/tool")}/members/all`)).status).toBe(
      404,
    );
  });

  it("lists users for admins only", async () => {
    const res = await api(url, system.adminToken).get("/api/v4/users?per_page=2");
    expect(res.status).toBe(200);
    expect(res.body.map((u: { username: string }) => u.username)).toEqual(["root", "olga"]);
    expect(res.headers.get("x-total")).toBe("5");
    expect((await api(url, dave.token).get("/api/v4/users")).status).toBe(403);
  });
});
