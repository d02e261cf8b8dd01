import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { seedProject } from "./seed.js";

/**
 * Issue 27: every answer that shows a secret carries `Cache-Control: no-store` (GitLab marks
 * such answers uncacheable), and answers without one are not marked.
 */
describe("answers that show a secret are not cacheable", () => {
  let sys: RunningSystem;
  let mgmt: string;
  beforeAll(async () => {
    sys = await startSystem();
    const project = await seedProject(sys.url, sys.adminToken, { path: "secrets" });
    mgmt = `/api/v4/projects/${project.id}/alert_management`;
  });
  afterAll(() => sys.stop());

  it("integration keys, signing secrets and personal access tokens", async () => {
    const admin = api(sys.url, sys.adminToken);
    const created = await admin.post(`${mgmt}/http_integrations`, { name: "Secret", active: true });
    const id = created.body.id as number;
    const me = await admin.get("/api/v4/user");
    const answers = {
      "create integration": created,
      "view credentials": await admin.get(`${mgmt}/http_integrations/${id}`),
      "edit integration": await admin.put(`${mgmt}/http_integrations/${id}`, { name: "Secret 2" }),
      "reset key": await admin.post(`${mgmt}/http_integrations/${id}/reset_token`),
      "signing secret": await admin.post(`${mgmt}/http_integrations/${id}/signing_secret`),
      "prometheus integration": await admin.get(`${mgmt}/prometheus_integration`),
      "prometheus reset key": await admin.post(`${mgmt}/prometheus_integration/reset_token`),
      "admin creates a token": await admin.post(`/api/v4/users/${me.body.id}/personal_access_tokens`, {
        name: "t1",
        scopes: ["api"],
      }),
      "own token": await admin.post("/api/v4/user/personal_access_tokens", { name: "t2", scopes: ["read_api"] }),
    };
    for (const [what, res] of Object.entries(answers)) {
      expect(res.status, `${what}: ${res.text}`).toBeLessThan(300);
      expect(res.headers.get("cache-control"), what).toBe("no-store");
    }
    expect((await admin.get(`${mgmt}/integrations`)).headers.get("cache-control")).not.toBe("no-store");
  });
});
