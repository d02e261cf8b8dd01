import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";

/**
 * Configuration of the outbound channels through the public REST API (PRODUCT.md section 12):
 * chat integrations and project hooks, GitLab's shapes, secrets write-only, Maintainer+.
 */
describe("channels configuration, end to end", () => {
  let sys: RunningSystem;
  let maintainer: SeededUser;
  let developer: SeededUser;
  let stranger: SeededUser;
  let project: SeededProject;
  const base = () => `/api/v4/projects/${encodeURIComponent(project.path_with_namespace)}`;
  const as = (u: SeededUser) => api(sys.url, u.token);

  beforeAll(async () => {
    sys = await startSystem();
    maintainer = await seedUser(sys.url, sys.adminToken, { username: "mia" });
    developer = await seedUser(sys.url, sys.adminToken, { username: "dev" });
    stranger = await seedUser(sys.url, sys.adminToken, { username: "stranger" });
    const group = await seedGroup(sys.url, maintainer.token, { path: "ops" });
    project = await seedProject(sys.url, maintainer.token, { path: "api", namespaceId: group.id });
    await addMember(sys.url, maintainer.token, "projects", project.id, developer.user.id, 30);
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("saves a Slack integration with GitLab's field names and never shows its webhook URL", async () => {
    const webhook = "https://hooks.slack.com/services/T000/B000/very-secret-part";
    const put = await as(maintainer).put(`${base()}/integrations/slack`, {
      webhook,
      username: "tocsin",
      channel: "#general",
      alert_events: true,
      alert_channel: "#alerts",
      incidents_events: true,
      incident_channel: "#incidents",
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({
      title: "Slack notifications",
      slug: "slack",
      active: true,
      alert_events: true,
      incident_events: true,
      alert_status: "executable",
      properties: {
        webhook: "https://hooks.slack.com/****",
        username: "tocsin",
        channel: "#general",
        alert_channel: "#alerts",
        incident_channel: "#incidents",
      },
    });
    const got = await as(maintainer).get(`${base()}/integrations/slack`);
    expect(got.body).toEqual(put.body);
    expect(got.text).not.toContain("very-secret-part");
    // Only the fields given change.
    const off = await as(maintainer).put(`${base()}/integrations/slack`, { incidents_events: false });
    expect(off.body).toMatchObject({ incident_events: false, alert_events: true, properties: { channel: "#general" } });
  });

  it("answers 404 for a chat integration never saved, and deletes", async () => {
    expect((await as(maintainer).get(`${base()}/integrations/mattermost`)).status).toBe(404);
    const missing = await as(maintainer).put(`${base()}/integrations/mattermost`, { username: "x" });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "webhook is missing" });
    const put = await as(maintainer).put(`${base()}/integrations/microsoft-teams`, {
      webhook: "https://prod.westeurope.logic.azure.com/workflows/abc/triggers/manual/paths/invoke?sig=secret",
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.properties.webhook).toBe("https://prod.westeurope.logic.azure.com/****");
    expect((await as(maintainer).del(`${base()}/integrations/microsoft-teams`)).status).toBe(204);
    expect((await as(maintainer).get(`${base()}/integrations/microsoft-teams`)).status).toBe(404);
    expect((await as(maintainer).get(`${base()}/integrations/jira`)).status).toBe(404);
  });

  it("refuses URLs that are not https without OUTBOUND_ALLOW_LOCAL_NETWORK", async () => {
    for (const webhook of [
      "http://hooks.slack.com/services/x",
      "ftp://example.com/x",
      "not a url",
      "https://u:p@example.com/x",
    ]) {
      const res = await as(maintainer).put(`${base()}/integrations/mattermost`, { webhook });
      expect(res.status, webhook).toBe(400);
      expect(JSON.stringify(res.body)).toMatch(/webhook/);
    }
    const hook = await as(maintainer).post(`${base()}/hooks`, { url: "http://example.com/hook" });
    expect(hook.status).toBe(400);
    expect((await as(maintainer).post(`${base()}/hooks`, {})).body).toEqual({ error: "url is missing" });
  });

  it("creates a hook: its signing secret shown once, its token never, no-store", async () => {
    const created = await as(maintainer).post(`${base()}/hooks`, {
      url: "https://receiver.example.com/tocsin",
      token: "shared-token-123",
      incident_events: true,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    expect(created.body).toMatchObject({
      url: "https://receiver.example.com/tocsin",
      project_id: project.id,
      alert_events: true,
      incident_events: true,
      enable_ssl_verification: true,
      signing: true,
      token_set: true,
      alert_status: "executable",
    });
    expect(created.body.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.text).not.toContain("shared-token-123");
    const id = created.body.id;
    const got = await as(maintainer).get(`${base()}/hooks/${id}`);
    expect(got.body.signing_secret).toBeUndefined();
    expect(got.text).not.toContain("shared-token-123");
    const list = await as(maintainer).get(`${base()}/hooks`);
    expect(list.body.map((h: { id: number }) => h.id)).toContain(id);
    expect(list.text).not.toContain("whsec_");

    const rotated = await as(maintainer).post(`${base()}/hooks/${id}/signing_secret`);
    expect(rotated.status).toBe(201);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    expect(rotated.body.signing_secret).toMatch(/^whsec_/);
    expect(rotated.body.signing_secret).not.toBe(created.body.signing_secret);
    expect(rotated.body.previous_signing_secret_expires_at).toBeNull();
    const overlapping = await as(maintainer).post(`${base()}/hooks/${id}/signing_secret`, { grace_period_seconds: 600 });
    expect(overlapping.status, overlapping.text).toBe(201);
    const until = Date.parse(overlapping.body.previous_signing_secret_expires_at);
    expect(until).toBeGreaterThan(Date.now() + 500_000);
    expect((await as(maintainer).get(`${base()}/hooks/${id}`)).body.previous_signing_secret_expires_at).toBe(
      overlapping.body.previous_signing_secret_expires_at,
    );
    for (const grace_period_seconds of [86_401, -1, 1.5, "soon"]) {
      const refused = await as(maintainer).post(`${base()}/hooks/${id}/signing_secret`, { grace_period_seconds });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.text).toContain("grace_period_seconds");
    }
    // A refused rotation changed nothing.
    expect((await as(maintainer).get(`${base()}/hooks/${id}`)).body.updated_at).toBe(overlapping.body.updated_at);

    const updated = await as(maintainer).put(`${base()}/hooks/${id}`, { token: "", alert_events: false, signing: false });
    expect(updated.body).toMatchObject({ token_set: false, alert_events: false, signing: false, incident_events: true });
    expect((await as(maintainer).del(`${base()}/hooks/${id}`)).status).toBe(204);
    expect((await as(maintainer).get(`${base()}/hooks/${id}`)).status).toBe(404);
  });

  it("refuses to post to loopback, private and link-local addresses, after DNS too, without OUTBOUND_ALLOW_LOCAL_NETWORK", async () => {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? "");
      res.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const webhook of [
        `https://127.0.0.1:${port}/hook`,
        `https://localhost:${port}/hook`,
        "https://10.0.0.1/hook",
        "https://169.254.169.254/latest/meta-data",
      ]) {
        const put = await as(maintainer).put(`${base()}/integrations/mattermost`, { webhook });
        expect(put.status, put.text).toBe(200);
        const test = await as(maintainer).post(`${base()}/integrations/mattermost/test`);
        expect(test.body, webhook).toEqual({
          delivered: false,
          response_status: null,
          error: "refused: the address is in a local network",
        });
      }
      expect(hits).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("applies the roles: Maintainer+ for reads too, developers 403, non-members 404, anonymous 401", async () => {
    const created = await as(maintainer).post(`${base()}/hooks`, { url: "https://receiver.example.com/roles" });
    const paths = [`${base()}/hooks`, `${base()}/hooks/${created.body.id}`, `${base()}/integrations/slack`];
    for (const path of paths) {
      expect((await as(developer).get(path)).status, path).toBe(403);
      expect((await as(stranger).get(path)).status, path).toBe(404);
      expect((await api(sys.url).get(path)).status, path).toBe(401);
    }
    expect((await as(developer).post(`${base()}/hooks`, { url: "https://x.example.com/" })).status).toBe(403);
    expect((await as(stranger).put(`${base()}/integrations/slack`, { webhook: "https://x.example.com/" })).status).toBe(404);
    expect((await as(developer).get(`${base()}/hooks/${created.body.id}/events`)).status).toBe(403);
    expect((await as(developer).post(`${base()}/integrations/slack/test`)).status).toBe(403);
  });
});
