import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";

const mongoUrl = inject("mongoUrl");
const backends: Array<[string, Record<string, string>]> = [["embedded store", {}]];
if (mongoUrl) backends.push(["MongoDB", { MONGO_URL: mongoUrl }]);
else console.warn("[silences-api] MongoDB unavailable: the MongoDB variant is SKIPPED");

/** Alertmanager's v2 silence API under a project, and the same silences as snake_case REST (section 13). */
describe.each(backends)("silences over HTTP, Alertmanager v2 and REST (%s)", (_name, env) => {
  let sys: RunningSystem;
  let owner: SeededUser;
  let developer: SeededUser;
  let reporter: SeededUser;
  let project: SeededProject;
  let am: string;
  let rest: string;

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const hour = 3600_000;
  const inHours = (h: number) => new Date(Date.now() + h * hour).toISOString();
  const postable = (over: Record<string, unknown> = {}) => ({
    matchers: [{ name: "alertname", value: "DatabaseDown", isRegex: false, isEqual: true }],
    startsAt: new Date().toISOString(),
    endsAt: inHours(1),
    createdBy: "ops",
    comment: "planned failover",
    ...over,
  });

  beforeAll(async () => {
    sys = await startSystem({ env });
    owner = await seedUser(sys.url, sys.adminToken, { username: "sil-owner" });
    developer = await seedUser(sys.url, sys.adminToken, { username: "sil-dev" });
    reporter = await seedUser(sys.url, sys.adminToken, { username: "sil-reporter" });
    const group = await seedGroup(sys.url, owner.token, { path: "ops" });
    project = await seedProject(sys.url, owner.token, { path: "db", namespaceId: group.id });
    await addMember(sys.url, owner.token, "projects", project.id, developer.user.id, 30);
    await addMember(sys.url, owner.token, "projects", project.id, reporter.user.id, 20);
    am = `/api/v4/projects/${project.id}/alertmanager/api/v2`;
    rest = `/api/v4/projects/${project.id}/alert_management/silences`;
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it("creates, reads, updates in place, replaces and expires as Alertmanager does", async () => {
    const client = api(sys.url);
    const created = await client.post(`${am}/silences`, postable(), bearer(owner.token));
    expect(created.status).toBe(200);
    const id = created.body.silenceID as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const got = await client.get(`${am}/silence/${id}`, bearer(developer.token));
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id,
      status: { state: "active" },
      comment: "planned failover",
      createdBy: "ops",
      matchers: [{ name: "alertname", value: "DatabaseDown", isRegex: false, isEqual: true }],
    });
    expect(got.body.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // A longer end and a new comment, same matchers and start: the same silence.
    const longer = { ...got.body, endsAt: inHours(2), comment: "takes longer" };
    const updated = await client.post(`${am}/silences`, longer, bearer(owner.token));
    expect(updated.body).toEqual({ silenceID: id });
    expect((await client.get(`${am}/silence/${id}`, bearer(owner.token))).body.comment).toBe("takes longer");

    // Other matchers: a new silence, the old one expired (history kept).
    const changed = { ...longer, matchers: [{ name: "job", value: "db-.*", isRegex: true, isEqual: true }] };
    const replaced = await client.post(`${am}/silences`, changed, bearer(owner.token));
    expect(replaced.status).toBe(200);
    const newId = replaced.body.silenceID as string;
    expect(newId).not.toBe(id);
    expect((await client.get(`${am}/silence/${id}`, bearer(owner.token))).body.status.state).toBe("expired");

    const list = await client.get(`${am}/silences`, bearer(owner.token));
    expect(list.body.map((s: { id: string }) => s.id)).toEqual([newId, id]);
    const filtered = await client.get(`${am}/silences?filter=${encodeURIComponent('job=~"db-.*"')}`, bearer(owner.token));
    expect(filtered.body.map((s: { id: string }) => s.id)).toEqual([newId]);

    const expired = await client.del(`${am}/silence/${newId}`, bearer(owner.token));
    expect(expired.status).toBe(200);
    expect((await client.get(`${am}/silence/${newId}`, bearer(owner.token))).body.status.state).toBe("expired");
  });

  it("answers a minimal Alertmanager status object", async () => {
    const status = await api(sys.url).get(`${am}/status`, bearer(developer.token));
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      cluster: { status: "disabled" },
      config: { original: "" },
      versionInfo: { version: expect.any(String) },
    });
  });

  it("works with the project's URL-encoded path and with PRIVATE-TOKEN", async () => {
    const byPath = `/api/v4/projects/${encodeURIComponent(project.path_with_namespace)}/alertmanager/api/v2/silences`;
    const res = await api(sys.url, owner.token).post(byPath, postable({ comment: "by path" }));
    expect(res.status).toBe(200);
    expect((await api(sys.url, developer.token).get(byPath)).status).toBe(200);
  });

  it("Developer+ reads, Maintainer+ writes, strangers and anonymous callers are refused", async () => {
    const client = api(sys.url);
    expect((await client.post(`${am}/silences`, postable(), bearer(developer.token))).status).toBe(403);
    expect((await client.get(`${am}/silences`, bearer(reporter.token))).status).toBe(403);
    expect((await client.get(`${am}/silences`)).status).toBe(401);
    expect((await client.get(`${am}/silences`, bearer("glpat-not-a-token"))).status).toBe(401);
    expect((await client.get("/api/v4/projects/999999/alertmanager/api/v2/silences", bearer(owner.token))).status).toBe(404);
    expect(
      (await client.post(rest, { ends_at: inHours(1), matchers: [{ name: "a", value: "b" }] }, bearer(developer.token))).status,
    ).toBe(403);
  });

  it("refuses bad silences with 400 and Alertmanager's message, unknown ids with 404, and writes nothing", async () => {
    const client = api(sys.url, owner.token);
    const before = (await client.get(`${am}/silences`)).body.length;
    const cases: Array<[unknown, RegExp]> = [
      [postable({ matchers: "alertname=x" }), /matchers must be an array/],
      [postable({ matchers: [] }), /at least one matcher required/],
      [postable({ matchers: [{ name: "a", value: "(", isRegex: true }] }), /invalid regular expression/],
      [
        postable({ endsAt: new Date(Date.now() - hour).toISOString(), startsAt: new Date(Date.now() - 2 * hour).toISOString() }),
        /end time can't be in the past/,
      ],
      [postable({ endsAt: "tomorrow" }), /endsAt is not a valid date-time/],
      [postable({ matchers: Array.from({ length: 51 }, (_, i) => ({ name: `l${i}`, value: "v" })) }), /at most 50 matchers/],
      [postable({ matchers: [{ name: "a", value: "v".repeat(1001) }] }), /1000 characters/],
      [[1, 2], /JSON object/],
    ];
    for (const [body, message] of cases) {
      const res = await client.post(`${am}/silences`, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(typeof res.body).toBe("string");
      expect(res.body).toMatch(message);
    }
    const malformed = await client.post(`${am}/silences`, "{not json");
    expect(malformed.status).toBe(400);
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect((await client.post(`${am}/silences`, postable({ id: unknown }))).status).toBe(404);
    expect((await client.get(`${am}/silence/${unknown}`)).status).toBe(404);
    expect((await client.del(`${am}/silence/${"x".repeat(300)}`)).status).toBe(404);
    expect((await client.get(`${am}/silences?filter=${encodeURIComponent("{broken")}`)).status).toBe(400);
    expect((await client.get(`${am}/silences`)).body.length).toBe(before);
  });

  it("serves the same silences as snake_case REST: list by state, get, create, update, expire", async () => {
    const client = api(sys.url, owner.token);
    const created = await client.post(rest, {
      matchers: [{ name: "host", value: "db-1", is_regex: false, is_equal: true }],
      ends_at: inHours(1),
      comment: "disk swap",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      project_id: project.id,
      state: "active",
      created_by: "sil-owner",
      comment: "disk swap",
      matchers: [{ name: "host", value: "db-1", is_regex: false, is_equal: true }],
    });
    const id = created.body.id as string;
    const pending = await client.post(rest, {
      matchers: [{ name: "service", value: "billing" }],
      starts_at: inHours(1),
      ends_at: inHours(2),
    });
    expect(pending.body.state).toBe("pending");

    const active = await client.get(`${rest}?state=active&per_page=100`);
    expect(active.status).toBe(200);
    expect(active.body.map((s: { id: string }) => s.id)).toContain(id);
    expect(active.body.every((s: { state: string }) => s.state === "active")).toBe(true);
    expect(active.headers.get("x-total")).toBe(String(active.body.length));
    const pendingList = await client.get(`${rest}?state=pending`);
    expect(pendingList.body.map((s: { id: string }) => s.id)).toEqual([pending.body.id]);
    expect((await client.get(`${rest}?state=sleeping`)).status).toBe(400);

    const updated = await client.put(`${rest}/${id}`, { comment: "disk swap, slot 2", ends_at: inHours(3) });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, comment: "disk swap, slot 2" });
    const rematched = await client.put(`${rest}/${id}`, { matchers: [{ name: "host", value: "db-2" }] });
    expect(rematched.body.id).not.toBe(id);
    expect((await client.get(`${rest}/${id}`)).body.state).toBe("expired");

    const expired = await client.del(`${rest}/${rematched.body.id}`);
    expect(expired.status).toBe(200);
    expect(expired.body.state).toBe("expired");
    expect((await client.get(`${rest}/${rematched.body.id}`)).body.state).toBe("expired");
    expect((await client.get(`${rest}/nope`)).status).toBe(404);
  });
});
