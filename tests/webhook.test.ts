import { createHash } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { type SeededGroup, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";
import { rawPost } from "./webhook-client.js";

interface Integration {
  id: number;
  url: string;
  token: string;
  endpoint_identifier: string;
}

const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");
const pathOf = (url: string) => new URL(url).pathname;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
const backends: Array<[string, Record<string, string>]> = [["embedded store, in-process queue", {}]];
if (mongoUrl && redisUrl) backends.push(["MongoDB, BullMQ", { MONGO_URL: mongoUrl, REDIS_URL: redisUrl }]);
else console.warn("[webhook] MongoDB or Redis unavailable: the MongoDB + BullMQ variant is SKIPPED");

describe.each(backends)("webhook receiver, end to end (%s)", (_name, env) => {
  let sys: RunningSystem;
  let owner: SeededUser;
  let group: SeededGroup;
  let project: SeededProject;
  let other: SeededProject;
  let main: Integration;
  let second: Integration;
  let foreign: Integration;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    rawPost(sys.url, path, typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body), headers);
  const mgmt = (p: SeededProject) => `/api/v4/projects/${p.id}/alert_management`;

  async function createIntegration(p: SeededProject, name: string, active = true): Promise<Integration> {
    const res = await api(sys.url, owner.token).post(`${mgmt(p)}/http_integrations`, { name, active });
    if (res.status !== 201) throw new Error(`create integration: ${res.status} ${res.text}`);
    return res.body as Integration;
  }

  beforeAll(async () => {
    sys = await startSystem({ env });
    owner = await seedUser(sys.url, sys.adminToken, { username: "owner" });
    group = await seedGroup(sys.url, sys.adminToken, { path: "acme", plan: "premium" });
    await api(sys.url, sys.adminToken).post(`/api/v4/groups/${group.id}/members`, { user_id: owner.user.id, access_level: 50 });
    const sub = await seedGroup(sys.url, owner.token, { path: "platform", parentId: group.id });
    project = await seedProject(sys.url, owner.token, { path: "checkout", namespaceId: sub.id });
    other = await seedProject(sys.url, owner.token, { path: "billing", namespaceId: group.id });
    main = await createIntegration(project, "Main Endpoint");
    second = await createIntegration(project, "Second");
    foreign = await createIntegration(other, "Billing");
  });
  afterAll(async () => {
    await sys?.stop();
  });

  describe("accepts", () => {
    it("a Bearer post at the integration's URL: 202 with request id and fingerprint", async () => {
      expect(pathOf(main.url)).toBe(`/acme/platform/checkout/alerts/notify/main-endpoint/${main.endpoint_identifier}.json`);
      const res = await post(pathOf(main.url), { title: "CPU high", fingerprint: "cpu-1" }, bearer(main.token));
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body).toEqual({ status: "accepted", request_id: expect.any(String), fingerprint: sha1("cpu-1") });
      expect(res.body.request_id.length).toBeGreaterThan(0);
    });

    it("Basic auth with any user name and the key as password, without .json", async () => {
      const basic = `Basic ${Buffer.from(`prometheus-bot:${main.token}`).toString("base64")}`;
      const res = await post(pathOf(main.url).replace(/\.json$/, ""), { title: "basic" }, { authorization: basic });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
    });

    it("whatever the slug says, and the legacy URL for the oldest integration", async () => {
      const path = `/acme/platform/checkout/alerts/notify/anything-at-all/${main.endpoint_identifier}`;
      expect((await post(path, { title: "slug" }, bearer(main.token))).status).toBe(202);
      expect((await post("/acme/platform/checkout/alerts/notify.json", { title: "legacy" }, bearer(main.token))).status).toBe(
        202,
      );
      expect((await post("/acme/platform/checkout/alerts/notify.json", { title: "legacy" }, bearer(second.token))).status).toBe(
        401,
      );
    });

    it("Prefer: wait answers once processed with the alert", async () => {
      const res = await post(
        pathOf(main.url),
        { title: "Waited for", fingerprint: "wait-1" },
        { ...bearer(main.token), prefer: "wait=5" },
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual([{ iid: expect.any(Number), title: "Waited for", status: "triggered", events: 1 }]);
      const again = await post(
        pathOf(main.url),
        { title: "Waited for", fingerprint: "wait-1" },
        { ...bearer(main.token), prefer: "wait" },
      );
      expect(again.body).toEqual([{ iid: res.body[0].iid, title: "Waited for", status: "triggered", events: 2 }]);
    });

    it("Idempotency-Key: a repeat gets the first answer and is not processed again", async () => {
      const headers = { ...bearer(main.token), "idempotency-key": "deploy-42" };
      const first = await post(pathOf(main.url), { title: "Once", fingerprint: "idem-1" }, { ...headers, prefer: "wait=5" });
      const repeat = await post(pathOf(main.url), { title: "Once", fingerprint: "idem-1" }, { ...headers, prefer: "wait=5" });
      expect(first.status).toBe(200);
      expect(repeat.body).toEqual(first.body);
      const list = await api(sys.url, owner.token).get(`${mgmt(project)}/alerts?search=Once`);
      expect(list.body).toHaveLength(1);
      expect(list.body[0].events).toBe(1);
    });
  });

  describe("checks in order", () => {
    const huge = Buffer.alloc(2 * 1024 * 1024, "a");

    it("no route → 404", async () => {
      const res = await post(`/acme/platform/checkout/alerts/notify/x/bad-id!`, {}, bearer(main.token));
      expect(res.status).toBe(404);
      expect(res.body.message).toMatch(/404 Not Found/);
      expect((await post("/nowhere", {}, bearer(main.token))).status).toBe(404);
    });

    it("a missing or wrong credential, an unknown project or endpoint → one 401 answer, even with a huge body", async () => {
      const answers = await Promise.all([
        post(pathOf(main.url), { title: "x" }),
        post(pathOf(main.url), { title: "x" }, { authorization: main.token }),
        post(pathOf(main.url), { title: "x" }, bearer("0".repeat(32))),
        post(pathOf(main.url), huge, bearer("0".repeat(32))),
        post(`/acme/nope/alerts/notify/x/${main.endpoint_identifier}.json`, { title: "x" }, bearer(main.token)),
        post("/acme/platform/checkout/alerts/notify/x/0123456789abcdef.json", { title: "x" }, bearer(main.token)),
        post("/acme/platform/checkout/prometheus/alerts/notify.json", { title: "x" }, bearer(main.token)),
      ]);
      for (const res of answers) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual(answers[0]?.body);
        expect(res.headers["www-authenticate"]).toBe('Bearer realm="tocsin alerts"');
      }
      expect(answers[0]?.body.message).toMatch(/^401 Unauthorized/);
    });

    it("a token of one project never posts into another", async () => {
      const crossed = `/acme/platform/checkout/alerts/notify/billing/${foreign.endpoint_identifier}.json`;
      expect((await post(crossed, { title: "x" }, bearer(foreign.token))).status).toBe(401);
      expect((await post(pathOf(foreign.url), { title: "x" }, bearer(main.token))).status).toBe(401);
      expect((await post("/acme/billing/alerts/notify.json", { title: "x" }, bearer(main.token))).status).toBe(401);
    });

    it("inactive → 403 before the body is looked at", async () => {
      const off = await createIntegration(project, "Disabled", false);
      const res = await post(pathOf(off.url), "{not json", bearer(off.token));
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/disabled/);
      expect((await post(pathOf(off.url), huge, bearer(off.token))).status).toBe(403);
    });

    it("a body over 1 MiB → 413, by Content-Length or by counting", async () => {
      const res = await post(pathOf(main.url), huge, bearer(main.token));
      expect(res.status).toBe(413);
      expect(res.body.message).toMatch(/1 MiB/);
      const chunked = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          new URL(pathOf(main.url), sys.url),
          {
            method: "POST",
            headers: { ...bearer(main.token), "content-type": "application/json", "transfer-encoding": "chunked" },
          },
          (r) => {
            r.resume();
            resolve(r.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        for (let i = 0; i < 40; i++) req.write(Buffer.alloc(64 * 1024, "a"));
        req.end();
      });
      expect(chunked).toBe(413);
    });

    it("bad bodies → 400 saying what is wrong", async () => {
      const deep = (n: number) => `{"a":${"[".repeat(n - 1)}${"]".repeat(n - 1)}}`;
      const cases: Array<[string | Buffer, Record<string, string>, RegExp]> = [
        ["{not json", {}, /not valid JSON/],
        ["[1,2]", {}, /must be an object/],
        ['"text"', {}, /must be an object/],
        ["", {}, /empty/],
        [deep(101), {}, /deeper than 100/],
        ['{"title":"x"}', { "content-type": "text/plain" }, /Content-Type/],
        [Buffer.from([0xc3, 0x28, 0xff]), {}, /UTF-8/],
      ];
      for (const [body, headers, message] of cases) {
        const res = await post(pathOf(main.url), body, { ...bearer(main.token), ...headers });
        expect(res.status, String(body).slice(0, 40)).toBe(400);
        expect(res.body.message).toMatch(message);
      }
      expect((await post(pathOf(main.url), deep(100), bearer(main.token))).status).toBe(202);
    });
  });

  describe("key changes take effect at once", () => {
    it("reset: the old key gets 401 on the very next request, the new one 202", async () => {
      const it1 = await createIntegration(project, "Rotating");
      expect((await post(pathOf(it1.url), { title: "a" }, bearer(it1.token))).status).toBe(202);
      const reset = await api(sys.url, owner.token).post(`${mgmt(project)}/http_integrations/${it1.id}/reset_token`);
      expect(reset.body.token).not.toBe(it1.token);
      expect((await post(pathOf(it1.url), { title: "a" }, bearer(it1.token))).status).toBe(401);
      expect((await post(pathOf(it1.url), { title: "a" }, bearer(reset.body.token))).status).toBe(202);
    });

    it("disable → 403, enable → 202, delete → 401", async () => {
      const it2 = await createIntegration(project, "Toggled");
      const path = pathOf(it2.url);
      expect((await post(path, { title: "a" }, bearer(it2.token))).status).toBe(202);
      await api(sys.url, owner.token).put(`${mgmt(project)}/http_integrations/${it2.id}`, { active: false });
      expect((await post(path, { title: "a" }, bearer(it2.token))).status).toBe(403);
      await api(sys.url, owner.token).put(`${mgmt(project)}/http_integrations/${it2.id}`, { active: true });
      expect((await post(path, { title: "a" }, bearer(it2.token))).status).toBe(202);
      expect((await api(sys.url, owner.token).del(`${mgmt(project)}/http_integrations/${it2.id}`)).status).toBe(204);
      expect((await post(path, { title: "a" }, bearer(it2.token))).status).toBe(401);
    });

    it("a drop to Free leaves only the oldest HTTP integration accepting (403 for the others)", async () => {
      const g = await seedGroup(sys.url, sys.adminToken, { path: "downgraded", plan: "premium" });
      await api(sys.url, sys.adminToken).post(`/api/v4/groups/${g.id}/members`, { user_id: owner.user.id, access_level: 50 });
      const p = await seedProject(sys.url, owner.token, { path: "app", namespaceId: g.id });
      const oldest = await createIntegration(p, "Oldest");
      const newer = await createIntegration(p, "Newer");
      expect((await post(pathOf(newer.url), { title: "a" }, bearer(newer.token))).status).toBe(202);
      const drop = await api(sys.url, sys.adminToken).put(`/api/v4/namespaces/${g.id}`, { plan: "free" });
      expect(drop.status, drop.text).toBe(200);
      expect((await post(pathOf(newer.url), { title: "a" }, bearer(newer.token))).status).toBe(403);
      expect((await post(pathOf(oldest.url), { title: "a" }, bearer(oldest.token))).status).toBe(202);
    });
  });

  it("the Prometheus URL takes Alertmanager payloads only", async () => {
    const prom = await api(sys.url, owner.token).put(`${mgmt(project)}/prometheus_integration`, { active: true });
    expect(prom.status, prom.text).toBe(200);
    expect(pathOf(prom.body.url)).toBe("/acme/platform/checkout/prometheus/alerts/notify.json");
    const am = {
      version: "4",
      groupKey: "g",
      status: "firing",
      receiver: "tocsin",
      groupLabels: {},
      commonLabels: {},
      commonAnnotations: {},
      externalURL: "http://am",
      alerts: [{ status: "firing", labels: { alertname: "Down" }, annotations: {}, startsAt: "2026-11-21T10:00:00Z" }],
    };
    expect((await post(pathOf(prom.body.url), am, bearer(prom.body.token))).status).toBe(202);
    const generic = await post(pathOf(prom.body.url), { title: "x" }, bearer(prom.body.token));
    expect(generic.status).toBe(400);
    expect(generic.body.message).toMatch(/Alertmanager/);
  });
});
