import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";
import { rawPost } from "./webhook-client.js";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The REST surface of alerts, incidents, alert settings and test alerts (PRODUCT.md section 4). */
describe("alerts, incidents, settings and test alerts over REST", () => {
  let sys: RunningSystem;
  let maintainer: SeededUser;
  let developer: SeededUser;
  let reporter: SeededUser;
  let project: SeededProject;
  let integration: { id: number; url: string; token: string };
  const base = () => `/api/v4/projects/${project.id}/alert_management`;
  const as = (u: SeededUser) => api(sys.url, u.token);
  const send = (body: unknown) =>
    rawPost(sys.url, new URL(integration.url).pathname, JSON.stringify(body), {
      authorization: `Bearer ${integration.token}`,
      prefer: "wait=5",
    });

  beforeAll(async () => {
    sys = await startSystem();
    maintainer = await seedUser(sys.url, sys.adminToken, { username: "maint" });
    developer = await seedUser(sys.url, sys.adminToken, { username: "devel" });
    reporter = await seedUser(sys.url, sys.adminToken, { username: "report" });
    const g = await seedGroup(sys.url, sys.adminToken, { path: "shop", plan: "premium" });
    await addMember(sys.url, sys.adminToken, "groups", g.id, maintainer.user.id, 40);
    project = await seedProject(sys.url, maintainer.token, { path: "web", namespaceId: g.id });
    await addMember(sys.url, maintainer.token, "projects", project.id, developer.user.id, 30);
    await addMember(sys.url, maintainer.token, "projects", project.id, reporter.user.id, 20);
    integration = (await as(maintainer).post(`${base()}/http_integrations`, { name: "Main", active: true })).body;
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("settings: GitLab's defaults, partial updates, Maintainer+", async () => {
    expect((await as(maintainer).get(`${base()}/settings`)).body).toEqual({
      create_incident: false,
      auto_close_incident: true,
      send_email: false,
    });
    const put = await as(maintainer).put(`${base()}/settings`, { create_incident: true });
    expect(put.body).toEqual({ create_incident: true, auto_close_incident: true, send_email: false });
    expect((await as(maintainer).put(`${base()}/settings`, { send_email: "maybe" })).body).toEqual({
      error: "send_email is invalid",
    });
    expect((await as(developer).get(`${base()}/settings`)).status).toBe(403);
  });

  it("refuses page numbers past the last servable page with 400, never 500", async () => {
    for (const path of ["alerts", "incidents"]) {
      for (const page of ["2147483648", "1000000000000", "1000001"]) {
        const res = await as(developer).get(`${base()}/${path}?page=${page}`);
        expect(res.status, `${path}?page=${page}`).toBe(400);
        expect(res.body).toEqual({ error: "page does not have a valid value" });
      }
      const last = await as(developer).get(`${base()}/${path}?page=1000000&per_page=100`);
      expect(last.status).toBe(200);
      expect(last.body).toEqual([]);
    }
  });

  it("lists alerts with filters, search, order and GitLab pagination", async () => {
    for (const [title, severity] of [
      ["Disk full", "high"],
      ["CPU hot", "low"],
      ["Disk slow", "info"],
    ]) {
      expect((await send({ title, severity, fingerprint: title, service: "api" })).status).toBe(200);
    }
    const page = await as(developer).get(`${base()}/alerts?per_page=2&order_by=iid&sort=asc`);
    expect(page.status).toBe(200);
    expect(page.body.map((a: { title: string }) => a.title)).toEqual(["Disk full", "CPU hot"]);
    expect(page.headers.get("x-total")).toBe("3");
    expect(page.headers.get("x-total-pages")).toBe("2");
    expect(page.headers.get("x-next-page")).toBe("2");
    expect(page.headers.get("link")).toContain('rel="next"');
    const alert = page.body[0];
    expect(alert).toEqual({
      iid: expect.any(Number),
      title: "Disk full",
      description: null,
      severity: "high",
      status: "triggered",
      service: "api",
      monitoring_tool: null,
      hosts: [],
      events: 1,
      fingerprint: expect.stringMatching(/^[0-9a-f]{40}$/),
      started_at: expect.stringMatching(ISO_MS),
      ended_at: null,
      environment: null,
      incident: { iid: expect.any(Number) },
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
      silenced_by: [],
    });
    const search = await as(developer).get(`${base()}/alerts?search=disk&order_by=severity&sort=desc`);
    expect(search.body.map((a: { title: string }) => a.title).sort()).toEqual(["Disk full", "Disk slow"]);
    expect((await as(developer).get(`${base()}/alerts?status=resolved`)).body).toEqual([]);
    expect((await as(developer).get(`${base()}/alerts?status=open`)).body).toEqual({
      error: "status does not have a valid value",
    });
    expect((await as(developer).get(`${base()}/alerts?order_by=title`)).body).toEqual({
      error: "order_by does not have a valid value",
    });
    expect((await as(reporter).get(`${base()}/alerts`)).status).toBe(403);
  });

  it("shows an alert's details and changes its status", async () => {
    const list = await as(developer).get(`${base()}/alerts?search=CPU`);
    const iid = list.body[0].iid;
    const details = await as(developer).get(`${base()}/alerts/${iid}`);
    expect(details.body.payload).toMatchObject({ title: "CPU hot", severity: "low" });
    expect(details.body.activity[0]).toEqual({
      note: expect.stringContaining("logged an alert"),
      created_at: expect.stringMatching(ISO_MS),
    });
    const put = await as(developer).put(`${base()}/alerts/${iid}`, { status: "acknowledged" });
    expect(put.status, put.text).toBe(200);
    expect(put.body.status).toBe("acknowledged");
    expect((await as(developer).put(`${base()}/alerts/${iid}`, {})).body).toEqual({ error: "status is missing" });
    expect((await as(developer).put(`${base()}/alerts/${iid}`, { status: "closed" })).body).toEqual({
      error: "status does not have a valid value",
    });
    expect((await as(developer).get(`${base()}/alerts/99999`)).status).toBe(404);
    expect((await as(developer).get(`${base()}/alerts/x`)).body).toEqual({ error: "alert_iid is invalid" });
  });

  it("lists several statuses in one request, comma-separated (the console's Open tab)", async () => {
    // Disk full (high) and Disk slow (info) are triggered; CPU hot (low) was acknowledged above.
    const titles = (body: Array<{ title: string }>) => body.map((a) => a.title);
    const open = await as(developer).get(`${base()}/alerts?status=triggered,acknowledged&order_by=severity&sort=desc`);
    expect(open.status, open.text).toBe(200);
    expect(titles(open.body)).toEqual(["Disk full", "CPU hot", "Disk slow"]);
    expect(open.headers.get("x-total")).toBe("3");
    const second = await as(developer).get(
      `${base()}/alerts?status=triggered,acknowledged&order_by=severity&sort=asc&per_page=1&page=2`,
    );
    expect(titles(second.body)).toEqual(["CPU hot"]);
    expect(second.headers.get("x-total-pages")).toBe("3");
    const ackOrResolved = await as(developer).get(`${base()}/alerts?status=acknowledged,resolved`);
    expect(titles(ackOrResolved.body)).toEqual(["CPU hot"]);
    expect(ackOrResolved.headers.get("x-total")).toBe("1");
    expect((await as(developer).get(`${base()}/alerts?status=triggered,open`)).body).toEqual({
      error: "status does not have a valid value",
    });
    expect((await as(developer).get(`${base()}/alerts?status=triggered,`)).status).toBe(400);
  });

  it("lists incidents and shows one", async () => {
    const list = await as(developer).get(`${base()}/incidents`);
    expect(list.status).toBe(200);
    expect(list.body.length).toBeGreaterThanOrEqual(1);
    expect(list.headers.get("x-total")).toBe(String(list.body.length));
    const incident = list.body[0];
    expect(incident).toEqual({
      iid: expect.any(Number),
      title: expect.any(String),
      severity: expect.any(String),
      status: "open",
      alert_iid: expect.any(Number),
      created_at: expect.stringMatching(ISO_MS),
      closed_at: null,
    });
    expect((await as(developer).get(`${base()}/incidents/${incident.iid}`)).body).toEqual(incident);
    expect((await as(developer).get(`${base()}/incidents?status=closed`)).body).toEqual([]);
  });

  it("test alerts: Developer+, GitLab's messages, dry run changes nothing", async () => {
    const url = `${base()}/http_integrations/${integration.id}/test_alert`;
    const ok = await as(developer).post(url, { title: "Test from REST", fingerprint: "rest-test" });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.message).toBe("The test alert should now be visible in your alerts list.");
    expect(ok.body.alert).toMatchObject({ title: "Test from REST", status: "triggered", events: 1 });
    const dry = await as(developer).post(`${url}?dry_run=true`, { title: "Test from REST", fingerprint: "rest-test" });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.dry_run).toMatchObject({
      action: "increment",
      existing_alert_iid: ok.body.alert.iid,
      fingerprint: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    const after = await as(developer).get(`${base()}/alerts/${ok.body.alert.iid}`);
    expect(after.body.events).toBe(1);
    const invalid = await as(developer).post(url, [{ title: "an array" }]);
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toMatch(/^Integration payload is invalid\./);
    const notJson = await as(developer).post(url, "{not json");
    expect(notJson.status).toBe(400);
    expect(notJson.body.message).toMatch(/^Integration payload is invalid\./);
    const off = (await as(maintainer).post(`${base()}/http_integrations`, { name: "Off" })).body;
    const inactive = await as(developer).post(`${base()}/http_integrations/${off.id}/test_alert`, { title: "x" });
    expect(inactive.status).toBe(403);
    expect(inactive.body).toEqual({
      message: "The integration is currently inactive. Enable the integration to send the test alert.",
    });
    expect((await as(reporter).post(url, { title: "x" })).status).toBe(403);
  });
});
