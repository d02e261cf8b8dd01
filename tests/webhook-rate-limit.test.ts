import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { bootGateway, type RunningSystem, startSystem } from "./harness.js";
import { seedGroup, seedProject } from "./seed.js";
import { rawPost } from "./webhook-client.js";

const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
const backends: Array<[string, Record<string, string>]> = [["embedded store, in-process queue", {}]];
if (mongoUrl && redisUrl) backends.push(["MongoDB, BullMQ", { MONGO_URL: mongoUrl, REDIS_URL: redisUrl }]);
else console.warn("[webhook-rate-limit] MongoDB or Redis unavailable: the MongoDB + BullMQ variant is SKIPPED");

/** PRODUCT.md section 10: per-integration budgets, and recoveries that still get through. */
describe.each(backends)("webhook rate limit per integration (%s)", (_name, env) => {
  let sys: RunningSystem;
  let projectId: number;
  let integration: { id: number; url: string; token: string; rate_limit_per_minute: number };
  const mgmt = () => `/api/v4/projects/${projectId}/alert_management`;
  const post = (body: unknown, base = sys.url) =>
    rawPost(base, new URL(integration.url).pathname, JSON.stringify(body), { authorization: `Bearer ${integration.token}` });

  beforeAll(async () => {
    sys = await startSystem({ env });
    const group = await seedGroup(sys.url, sys.adminToken, { path: "limited", plan: "premium" });
    const project = await seedProject(sys.url, sys.adminToken, { path: "svc", namespaceId: group.id });
    projectId = project.id;
    const created = await api(sys.url, sys.adminToken).post(`${mgmt()}/http_integrations`, {
      name: "Noisy",
      active: true,
      rate_limit_per_minute: 60,
    });
    expect(created.status, created.text).toBe(201);
    integration = created.body;
  });
  afterAll(() => sys.stop());

  it("shows the budget in GET and in the integrations list, default included; refuses bad values", async () => {
    const admin = api(sys.url, sys.adminToken);
    expect(integration.rate_limit_per_minute).toBe(60);
    const list = await admin.get(`${mgmt()}/integrations`);
    expect(list.body).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: integration.id, rate_limit_per_minute: 60 })]),
    );
    const prom = await admin.get(`${mgmt()}/prometheus_integration`);
    expect(prom.body.rate_limit_per_minute).toBe(6000);
    for (const bad of [-1, 1.5, 1_000_001, 2 ** 40, "many"]) {
      const res = await admin.put(`${mgmt()}/http_integrations/${integration.id}`, { rate_limit_per_minute: bad });
      expect(res.status, `${bad}: ${res.text}`).toBe(400);
    }
  });

  it("120 posts at once against 60/min → 429s with the headers; a recovery during the flood resolves its alert", async () => {
    const trigger = await post({ title: "Disk full", fingerprint: "disk-1" });
    expect(trigger.status).toBe(202);
    await until(async () => {
      const res = await api(sys.url, sys.adminToken).get(`${mgmt()}/alerts?search=Disk`);
      return (res.body as unknown[]).length === 1;
    });
    const flood = Array.from({ length: 120 }, (_, i) => post({ title: `Flood ${i}`, fingerprint: `flood-${i}` }));
    const recovery = post({ title: "Disk full", fingerprint: "disk-1", end_time: new Date().toISOString() });
    const answers = await Promise.all(flood);
    const refused = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 202).length).toBeLessThanOrEqual(12); // one burst (two if a window turned)
    expect(refused.length).toBeGreaterThanOrEqual(100);
    const sample = refused[0];
    expect(sample?.headers["retry-after"]).toMatch(/^\d+$/);
    expect(sample?.headers["ratelimit-limit"]).toBe("60");
    expect(sample?.headers["ratelimit-remaining"]).toBe("0");
    expect(sample?.headers["ratelimit-reset"]).toMatch(/^\d+$/);
    // The limiter's own burst (one tenth of 60) and window, carried in alert-service's answer.
    expect(sample?.headers["ratelimit-policy"]).toBe("6;w=6");
    expect(sample?.body.message).toMatch(/60 requests per minute/);
    expect((await recovery).status).toBe(202);
    await until(async () => {
      const res = await api(sys.url, sys.adminToken).get(`${mgmt()}/alerts?search=Disk`);
      const [alert] = res.body as Array<{ status: string }>;
      return alert?.status === "resolved";
    }, 20_000);
    const metrics = await (await fetch(`${sys.url}/metrics`)).text();
    expect(metrics).toMatch(
      new RegExp(`tocsin_webhook_throttled_requests_total\\{project_id="${projectId}",kind="alert"\\} \\d+`),
    );
  });

  it("two gateways share the budget", async () => {
    const other = await bootGateway({
      LOG_LEVEL: "silent",
      PORT: "0",
      AUTH_SERVICE_ADDR: sys.authAddr,
      ALERT_SERVICE_ADDR: sys.alertAddr,
      SETTINGS_SERVICE_ADDR: sys.settingsAddr,
      ...env,
    });
    try {
      // Wait out the current window, then spend one burst through both gateways at once.
      await until(async () => (await post({ title: "probe", fingerprint: "probe" })).status === 202, 20_000, 500);
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          post({ title: `Shared ${i}`, fingerprint: `shared-${i}` }, i % 2 ? other.url : sys.url),
        ),
      );
      const accepted = answers.filter((a) => a.status === 202).length;
      expect(accepted).toBeLessThanOrEqual(12);
      expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(12);
    } finally {
      await other.stop();
    }
  });

  it("0 means unlimited", async () => {
    const res = await api(sys.url, sys.adminToken).put(`${mgmt()}/http_integrations/${integration.id}`, {
      rate_limit_per_minute: 0,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.rate_limit_per_minute).toBe(0);
    await until(
      async () => {
        const answers = await Promise.all(
          Array.from({ length: 30 }, (_, i) => post({ title: `Free ${i}`, fingerprint: `free-${i}` })),
        );
        return answers.every((a) => a.status === 202 && a.headers["ratelimit-limit"] === undefined);
      },
      20_000,
      500,
    );
  });
});
