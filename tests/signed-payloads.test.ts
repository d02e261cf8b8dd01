import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { seedProject } from "./seed.js";
import { rawPost } from "./webhook-client.js";

const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
const backends: Array<[string, Record<string, string>]> = [["embedded store, in-process queue", {}]];
if (mongoUrl && redisUrl) backends.push(["MongoDB, BullMQ", { MONGO_URL: mongoUrl, REDIS_URL: redisUrl }]);

const sign = (secret: string, t: number, body: string) => createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");

/** PRODUCT.md section 10, "Signed payloads". */
describe.each(backends)("signed payloads (%s)", (_name, env) => {
  let sys: RunningSystem;
  let mgmt: string;
  beforeAll(async () => {
    sys = await startSystem({ env });
    const project = await seedProject(sys.url, sys.adminToken, { path: "signed" });
    mgmt = `/api/v4/projects/${project.id}/alert_management`;
  });
  afterAll(() => sys.stop());

  it("a signed post is accepted; a missing, wrong or 10-minute-old signature gets 401 saying which; DELETE turns it off", async () => {
    const admin = api(sys.url, sys.adminToken);
    const created = await admin.post(`${mgmt}/http_integrations`, { name: "Signed", active: true });
    const { id, url, token } = created.body;
    expect(created.body.signing_enabled).toBe(false);
    const issued = await admin.post(`${mgmt}/http_integrations/${id}/signing_secret`);
    expect(issued.status, issued.text).toBe(201);
    const secret = issued.body.signing_secret as string;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect((await admin.get(`${mgmt}/http_integrations/${id}`)).body).toMatchObject({ signing_enabled: true });
    expect(JSON.stringify((await admin.get(`${mgmt}/http_integrations/${id}`)).body)).not.toContain(secret);

    const path = new URL(url).pathname;
    const body = JSON.stringify({ title: "Signed alert", fingerprint: "signed-1" });
    const post = (signature?: string, payload = body) =>
      rawPost(sys.url, path, payload, {
        authorization: `Bearer ${token}`,
        ...(signature ? { "x-tocsin-signature": signature } : {}),
      });
    const now = Math.floor(Date.now() / 1000);
    expect((await post(`t=${now},v1=${sign(secret, now, body)}`)).status).toBe(202);

    const missing = await post();
    expect(missing.status).toBe(401);
    expect(missing.body.message).toMatch(/X-Tocsin-Signature header is missing/);
    const wrong = await post(`t=${now},v1=${sign(secret, now, "{}")}`);
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toMatch(/does not match/);
    const old = now - 600;
    const stale = await post(`t=${old},v1=${sign(secret, old, body)}`);
    expect(stale.status).toBe(401);
    expect(stale.body.message).toMatch(/more than 300 seconds/);

    expect((await admin.del(`${mgmt}/http_integrations/${id}/signing_secret`)).status).toBe(204);
    expect((await post()).status).toBe(202);
  });
});
