import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { seedProject } from "./seed.js";
import { rawPost } from "./webhook-client.js";

const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
const backends: Array<[string, Record<string, string>]> = [["embedded store, in-process queue", {}]];
if (mongoUrl && redisUrl) backends.push(["MongoDB, BullMQ", { MONGO_URL: mongoUrl, REDIS_URL: redisUrl }]);

/** PRODUCT.md section 10, "Key rotation with overlap". */
describe.each(backends)("reset_token with a grace period (%s)", (_name, env) => {
  let sys: RunningSystem;
  let mgmt: string;
  beforeAll(async () => {
    sys = await startSystem({ env });
    const project = await seedProject(sys.url, sys.adminToken, { path: "rotating" });
    mgmt = `/api/v4/projects/${project.id}/alert_management`;
  });
  afterAll(() => sys.stop());

  const post = (url: string, token: string) =>
    rawPost(sys.url, new URL(url).pathname, JSON.stringify({ title: "rotation" }), { authorization: `Bearer ${token}` });

  it("accepts both keys during the grace, the old one gets 401 after it; the integration shows both times", async () => {
    const admin = api(sys.url, sys.adminToken);
    const created = await admin.post(`${mgmt}/http_integrations`, { name: "Rotating", active: true });
    const { id, url, token: oldKey } = created.body;
    expect(created.body.token_last_used_at).toBeNull();
    expect(created.body.previous_token_expires_at).toBeNull();
    expect((await post(url, oldKey)).status).toBe(202);
    const used = await until(async () => (await admin.get(`${mgmt}/http_integrations/${id}`)).body.token_last_used_at);
    expect(Date.parse(used)).toBeGreaterThan(Date.now() - 60_000);

    const reset = await admin.post(`${mgmt}/http_integrations/${id}/reset_token`, { grace_period_seconds: 3 });
    expect(reset.status, reset.text).toBe(200);
    const newKey = reset.body.token as string;
    expect(newKey).not.toBe(oldKey);
    const expiresAt = Date.parse(reset.body.previous_token_expires_at);
    expect(expiresAt).toBeGreaterThan(Date.now());
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3_000);
    expect((await admin.get(`${mgmt}/http_integrations/${id}`)).body.previous_token_expires_at).toBe(
      reset.body.previous_token_expires_at,
    );

    expect((await post(url, newKey)).status).toBe(202);
    expect((await post(url, oldKey)).status).toBe(202);
    // After the grace: the old key is refused, the new one still works.
    await until(async () => (await post(url, oldKey)).status === 401, 10_000, 200);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect((await post(url, newKey)).status).toBe(202);
  });

  it("without a grace period the old key stops at once; the grace is 0 to 86400 seconds", async () => {
    const admin = api(sys.url, sys.adminToken);
    const { body: prom } = await admin.put(`${mgmt}/prometheus_integration`, { active: true });
    const oldKey = prom.token as string;
    const reset = await admin.post(`${mgmt}/prometheus_integration/reset_token`);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.previous_token_expires_at).toBeNull();
    const alertmanager = { version: "4", status: "firing", alerts: [{ status: "firing", labels: { alertname: "x" } }] };
    const path = new URL(prom.url).pathname;
    const old = await rawPost(sys.url, path, JSON.stringify(alertmanager), { authorization: `Bearer ${oldKey}` });
    expect(old.status).toBe(401);
    for (const bad of [-1, 86_401, 2 ** 40, "soon"]) {
      const res = await admin.post(`${mgmt}/prometheus_integration/reset_token`, { grace_period_seconds: bad });
      expect(res.status, `${bad}: ${res.text}`).toBe(400);
    }
  });
});
