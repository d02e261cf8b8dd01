import { captureLogger } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { seedProject } from "./seed.js";
import { requestFrom } from "./webhook-protection.js";

const redisUrl = inject("redisUrl");
const modes = [
  { name: "in memory", env: {} as Record<string, string> },
  ...(redisUrl
    ? [{ name: "in Redis", env: { REDIS_URL: redisUrl, RATE_LIMIT_PREFIX: `tocsin-test-${process.pid}-${Date.now()}` } }]
    : []),
];

/** PRODUCT.md section 10, "Failed credentials": > 100 failures a minute from one address → 429 for a minute. */
describe.each(modes)("failed-credential throttling ($name)", ({ env }) => {
  let system: RunningSystem;
  let webhookUrl: string;
  let token: string;
  const capture = captureLogger("debug");
  beforeAll(async () => {
    system = await startSystem({ env: { ...env, LOG_LEVEL: "debug" }, logger: capture.logger });
    const project = await seedProject(system.url, system.adminToken, { path: "guarded" });
    const created = await api(system.url, system.adminToken).post(
      `/api/v4/projects/${project.id}/alert_management/http_integrations`,
      { name: "Main", active: true },
    );
    webhookUrl = `${system.url}${new URL(created.body.url).pathname}`;
    token = created.body.token;
  });
  afterAll(() => system.stop());

  it("150 wrong webhook keys from one address → 429 for it; another address is still served", async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof requestFrom>> | undefined;
    for (let i = 0; i < 150; i++) {
      const wrong = `wrong-key-${i.toString().padStart(4, "0")}-guess`;
      last = await requestFrom("127.0.0.3", webhookUrl, {
        method: "POST",
        headers: { authorization: `Bearer ${wrong}` },
        body: JSON.stringify({ title: "guess" }),
      });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 100).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(-40).every((s) => s === 429)).toBe(true);
    expect(last?.headers["retry-after"]).toMatch(/^\d+$/);
    expect(Number(last?.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect(last?.body.message).toMatch(/failed authentications from this address/);
    // Even the right key is refused from that address for the minute...
    const blocked = await requestFrom("127.0.0.3", webhookUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ title: "real" }),
    });
    expect(blocked.status).toBe(429);
    // ...while another address is served.
    const other = await requestFrom("127.0.0.2", webhookUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ title: "real" }),
    });
    expect(other.status).toBe(202);
    // Nothing logged holds a tried secret.
    expect(capture.text()).not.toContain("wrong-key-");
  });

  it("150 wrong API tokens from one address → 429 for it; another address is still served", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 150; i++) {
      const res = await requestFrom("127.0.0.4", `${system.url}/api/v4/user`, {
        headers: { "private-token": `bad-token-${i}-x` },
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 100).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(-40).every((s) => s === 429)).toBe(true);
    const other = await requestFrom("127.0.0.2", `${system.url}/api/v4/user`, {
      headers: { "private-token": system.adminToken },
    });
    expect(other.status).toBe(200);
    expect(capture.text()).not.toContain("bad-token-");
  });
});
