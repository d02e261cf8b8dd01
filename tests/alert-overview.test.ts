import { createHash } from "node:crypto";
import { FakeClock } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";
import { rawPost } from "./webhook-client.js";

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");
const zero = { critical: 0, high: 0, medium: 0, low: 0, info: 0, unknown: 0 };

/**
 * The console's aggregate calls (docs/overview-api.md) over REST, on alerts posted with known
 * `start_time`s and a clock fixed at 2026-11-21T10:30Z: hours from 2026-11-20T11:00Z, days from
 * 2026-10-23 (today is the 30th), the last 7 days from 2026-11-15.
 */
const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
// The processing thread keeps the system clock: with the fixed clock, processing runs in the main thread.
const backends: [string, Record<string, string>][] = [["embedded", { ALERT_PROCESSING_THREAD: "false" }]];
if (mongoUrl && redisUrl) backends.push(["mongodb", { MONGO_URL: mongoUrl, REDIS_URL: redisUrl }]);
else console.warn("[alert-overview] MongoDB or Redis unavailable: the MongoDB variant is SKIPPED");

describe.each(backends)("project overview and open alerts by project (%s)", (_name, env) => {
  const clock = new FakeClock("2026-11-21T10:30:00.000Z");
  let sys: RunningSystem;
  let maintainer: SeededUser;
  let developer: SeededUser;
  let reporter: SeededUser;
  let web: SeededProject;
  let apiProject: SeededProject;
  const as = (u: SeededUser) => api(sys.url, u.token);
  const overviewOf = (p: SeededProject) => `/api/v4/projects/${p.id}/alert_management/overview`;

  async function integration(p: SeededProject) {
    const i = (
      await as(maintainer).post(`/api/v4/projects/${p.id}/alert_management/http_integrations`, { name: "Main", active: true })
    ).body as { url: string; token: string };
    return async (body: unknown) => {
      const res = await rawPost(sys.url, new URL(i.url).pathname, JSON.stringify(body), {
        authorization: `Bearer ${i.token}`,
        prefer: "wait=5",
      });
      expect(res.status).toBe(200);
      return res.body[0] as { iid: number };
    };
  }

  beforeAll(async () => {
    sys = await startSystem({ clock, env });
    maintainer = await seedUser(sys.url, sys.adminToken, { username: "ov-maint" });
    developer = await seedUser(sys.url, sys.adminToken, { username: "ov-dev" });
    reporter = await seedUser(sys.url, sys.adminToken, { username: "ov-rep" });
    const g = await seedGroup(sys.url, sys.adminToken, { path: "ops", plan: "premium" });
    await addMember(sys.url, sys.adminToken, "groups", g.id, maintainer.user.id, 40);
    web = await seedProject(sys.url, maintainer.token, { path: "web", namespaceId: g.id });
    apiProject = await seedProject(sys.url, maintainer.token, { path: "api", namespaceId: g.id });
    await seedProject(sys.url, maintainer.token, { path: "quiet", namespaceId: g.id });
    await addMember(sys.url, maintainer.token, "projects", web.id, developer.user.id, 30);
    await addMember(sys.url, maintainer.token, "projects", web.id, reporter.user.id, 20);

    const post = await integration(web);
    // 3 events of one critical alert, started this hour; acknowledged 35 minutes after its start.
    let db = { iid: 0 };
    for (let i = 0; i < 3; i++) {
      db = await post({
        title: "DB down",
        severity: "critical",
        fingerprint: "db",
        service: "db",
        start_time: "2026-11-21T10:05:00Z",
      });
    }
    // High, yesterday 12:00, resolved by a user at 10:50 today (22 h 50 min).
    const slow = await post({
      title: "Slow web",
      severity: "high",
      fingerprint: "web",
      service: "web",
      start_time: "2026-11-20T12:00:00Z",
    });
    // Medium, 09:00 today, still triggered.
    await post({ title: "Queue long", severity: "medium", start_time: "2026-11-21T09:00:00Z" });
    // Low, 11 days ago, recorded resolved after 6 h.
    await post({
      title: "Old",
      severity: "low",
      fingerprint: "old",
      start_time: "2026-11-10T00:00:00Z",
      end_time: "2026-11-10T06:00:00Z",
    });
    const put = (iid: number, status: string) =>
      as(developer).put(`/api/v4/projects/${web.id}/alert_management/alerts/${iid}`, { status });
    clock.set("2026-11-21T10:40:00.000Z");
    expect((await put(db.iid, "acknowledged")).status).toBe(200);
    clock.set("2026-11-21T10:50:00.000Z");
    expect((await put(slow.iid, "resolved")).status).toBe(200);

    await (await integration(apiProject))({ title: "API 500s", severity: "critical", start_time: "2026-11-21T10:00:00Z" });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("answers the overview: open alerts, alerts started per hour and per day, noisiest, response times", async () => {
    const res = await as(developer).get(overviewOf(web));
    expect(res.status).toBe(200);
    const o = res.body;
    expect(o.generated_at).toBe("2026-11-21T10:50:00.000Z");
    expect(o.open_alerts).toEqual({ triggered: { ...zero, medium: 1 }, acknowledged: { ...zero, critical: 1 } });

    const hourly = o.alerts_started.hourly as Array<{ start: string; counts: typeof zero }>;
    expect(hourly).toHaveLength(24);
    expect(hourly[0]?.start).toBe("2026-11-20T11:00:00.000Z");
    expect(hourly[23]?.start).toBe("2026-11-21T10:00:00.000Z");
    const nonEmpty = (buckets: typeof hourly) => buckets.filter((b) => Object.values(b.counts).some((n) => n > 0));
    expect(nonEmpty(hourly)).toEqual([
      { start: "2026-11-20T12:00:00.000Z", counts: { ...zero, high: 1 } },
      { start: "2026-11-21T09:00:00.000Z", counts: { ...zero, medium: 1 } },
      { start: "2026-11-21T10:00:00.000Z", counts: { ...zero, critical: 1 } },
    ]);
    const daily = o.alerts_started.daily as typeof hourly;
    expect(daily).toHaveLength(30);
    expect(daily[0]?.start).toBe("2026-10-23T00:00:00.000Z");
    expect(nonEmpty(daily)).toEqual([
      { start: "2026-11-10T00:00:00.000Z", counts: { ...zero, low: 1 } },
      { start: "2026-11-20T00:00:00.000Z", counts: { ...zero, high: 1 } },
      { start: "2026-11-21T00:00:00.000Z", counts: { ...zero, critical: 1, medium: 1 } },
    ]);

    expect(o.noisiest_fingerprints[0]).toEqual({
      fingerprint: sha1("db"),
      title: "DB down",
      service: "db",
      events: 3,
      alerts: 1,
    });
    expect(o.noisiest_fingerprints).toHaveLength(3); // db, web, and the payload fingerprint of "Queue long" (Premium)
    expect(o.noisiest_services).toEqual([
      { service: "db", events: 3, alerts: 1 },
      { service: "web", events: 1, alerts: 1 },
    ]);
    expect(o.response_times).toEqual([
      { days: 7, acknowledged: 1, mean_time_to_acknowledge_seconds: 2100, resolved: 1, mean_time_to_resolve_seconds: 82_200 },
      { days: 30, acknowledged: 1, mean_time_to_acknowledge_seconds: 2100, resolved: 2, mean_time_to_resolve_seconds: 51_900 },
    ]);
  });

  it("is for Developer+: a Reporter gets 403, a non-member 404", async () => {
    expect((await as(reporter).get(overviewOf(web))).status).toBe(403);
    expect((await as(developer).get(overviewOf(apiProject))).body).toEqual({ message: "404 Project Not Found" });
  });

  it("answers every visible project's open alerts in one call, burning projects first, paged", async () => {
    const all = await as(maintainer).get("/api/v4/alert_management/open_alerts_by_project");
    expect(all.status).toBe(200);
    expect(all.body.map((p: { path_with_namespace: string }) => p.path_with_namespace)).toEqual([
      "ops/api",
      "ops/web",
      "ops/quiet",
    ]);
    expect(all.body[0]).toEqual({
      project_id: apiProject.id,
      name: "api",
      path_with_namespace: "ops/api",
      tier: "premium",
      access_level: 40,
      open_alerts: { triggered: { ...zero, critical: 1 }, acknowledged: zero },
    });
    const page = await as(maintainer).get("/api/v4/alert_management/open_alerts_by_project?per_page=2&page=2");
    expect(page.headers.get("x-total")).toBe("3");
    expect(page.body.map((p: { name: string }) => p.name)).toEqual(["quiet"]);
    expect((await as(maintainer).get("/api/v4/alert_management/open_alerts_by_project?search=we")).body).toHaveLength(1);
    // Below Developer a project is listed without counts (alerts are Developer+).
    const dev = (await as(developer).get("/api/v4/alert_management/open_alerts_by_project")).body;
    expect(dev.map((p: { name: string; access_level: number }) => [p.name, p.access_level])).toEqual([["web", 30]]);
    expect(dev[0].open_alerts.triggered.medium).toBe(1);
    const rep = (await as(reporter).get("/api/v4/alert_management/open_alerts_by_project")).body;
    expect(rep).toEqual([
      { project_id: web.id, name: "web", path_with_namespace: "ops/web", tier: "premium", access_level: 20, open_alerts: null },
    ]);
  });

  it("filters the alerts list by severity, service and monitoring tool", async () => {
    const list = async (q: string) =>
      (await as(developer).get(`/api/v4/projects/${web.id}/alert_management/alerts?${q}`)).body.map(
        (a: { title: string }) => a.title,
      );
    expect(await list("severity=critical")).toEqual(["DB down"]);
    expect(await list("service=WEB")).toEqual(["Slow web"]);
    expect(await list("severity=critical&service=web")).toEqual([]);
    expect((await as(developer).get(`/api/v4/projects/${web.id}/alert_management/alerts?severity=urgent`)).status).toBe(400);
  });
});
