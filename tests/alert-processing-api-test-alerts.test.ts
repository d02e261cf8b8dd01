import { silentLogger } from "@tocsin/core";
import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAlertsRuntime } from "../alert-service/src/alerts-runtime.js";
import { ctx, type Harness } from "./alert-processing.fixtures.js";
import { type AlertClient, failure, ingestVia, NO_FILTERS, servedUseCases } from "./alert-processing-api.fixtures.js";

/**
 * Alert use-cases over real gRPC (SQLite, SQLite queue): test alerts and their dry runs, alert
 * settings and incidents, Prometheus batches; and ingest with Redis unreachable. Ingest, the list,
 * status changes and roles: tests/alert-processing-api-alerts.test.ts.
 */
describe("alert use-cases over real gRPC (SQLite, SQLite queue)", () => {
  let h: Harness;
  let client: AlertClient;
  const served = servedUseCases();
  beforeAll(async () => {
    ({ h, client } = await served.start());
  });
  afterAll(() => served.stop());

  const ingest = ingestVia(() => client);

  it("test alerts: GitLab's messages, the processed alert, and a dry run that writes nothing", async () => {
    const p = h.world.project("premium");
    const i = h.world.integration(p, { name: "Grafana" });
    const send = (payloadJson: string, dryRun = false, integrationId = i.id) =>
      client.sendTestAlert({ projectIdOrPath: String(p), integrationId, payloadJson, dryRun }, ctx());
    expect(await failure(send("not json"))).toMatchObject({
      code: "INVALID_ARGUMENT",
      message: "Integration payload is invalid.",
    });
    expect(await failure(send("[1]"))).toMatchObject({ message: "Integration payload is invalid." });
    const off = h.world.integration(p, { active: false });
    expect(await failure(send("{}", false, off.id))).toMatchObject({
      code: "PERMISSION_DENIED",
      message: "The integration is currently inactive. Enable the integration to send the test alert.",
    });
    await client.updateAlertSettings({ projectIdOrPath: String(p), createIncident: true }, ctx());
    const dry = await send('{"title":"Test","service":"web"}', true);
    expect(dry.dryRun).toMatchObject({
      action: "create",
      existingAlertIid: 0,
      wouldCreateIncident: true,
      wouldCloseIncident: false,
    });
    expect(JSON.parse(dry.dryRun?.normalizedAlertJson ?? "{}")).toMatchObject({
      title: "Test",
      service: "web",
      severity: "critical",
    });
    expect(dry.alert).toBeUndefined();
    expect(
      (
        await client.listAlerts(
          { projectIdOrPath: String(p), status: "", search: "", ...NO_FILTERS, orderBy: "", sort: "", page: 1, perPage: 20 },
          ctx(),
        )
      ).total,
    ).toBe(0);
    const sent = await send('{"title":"Test","service":"web"}');
    expect(sent.message).toBe("The test alert should now be visible in your alerts list.");
    expect(sent.alert).toMatchObject({ iid: 1, title: "Test", events: 1, status: "triggered" });
    expect(sent.alert?.activity[0]?.note).toBe("logged an alert from **Grafana**");
    const again = await send('{"title":"Test","service":"web"}', true);
    expect(again.dryRun).toMatchObject({ action: "increment", existingAlertIid: 1, fingerprint: dry.dryRun?.fingerprint });
    const recovery = await send('{"title":"Test","service":"web","end_time":"2026-11-21T10:00:00Z"}', true);
    expect(recovery.dryRun).toMatchObject({ action: "resolve", existingAlertIid: 1 });
    const incident = await until(async () => {
      const l = await client.listIncidents({ projectIdOrPath: String(p), status: "open", page: 1, perPage: 20 }, ctx());
      return l.total ? l.incidents[0] : undefined;
    });
    expect(incident).toMatchObject({ iid: 1, title: "Test", status: "open", alertIid: 1 });
    expect(
      (await send('{"title":"Test","service":"web","end_time":"2026-11-21T10:00:00Z"}', true)).dryRun?.wouldCloseIncident,
    ).toBe(true);
    expect((await send('{"title":"Other","end_time":"2026-11-21T10:00:00Z"}', true)).dryRun?.action).toBe("create_resolved");
  });

  it("settings default, update partially, and incidents use the default title rule", async () => {
    const p = h.world.project();
    const i = h.world.integration(p);
    expect((await client.getAlertSettings({ projectIdOrPath: String(p) }, ctx())).settings).toEqual({
      createIncident: false,
      autoCloseIncident: true,
      sendEmail: false,
    });
    const updated = await client.updateAlertSettings(
      { projectIdOrPath: String(p), createIncident: true, sendEmail: true },
      ctx(),
    );
    expect(updated.settings).toEqual({ createIncident: true, autoCloseIncident: true, sendEmail: true });
    await ingest(p, i.id, {});
    const incident = await until(
      async () =>
        (await client.listIncidents({ projectIdOrPath: String(p), status: "", page: 1, perPage: 20 }, ctx())).incidents[0],
    );
    expect(incident).toMatchObject({ iid: 1, title: "New: Incident 1", status: "open", alertIid: 1 });
    expect((await client.getIncident({ projectIdOrPath: String(p), incidentIid: 1 }, ctx())).incident?.title).toBe(
      "New: Incident 1",
    );
    expect(await failure(client.getIncident({ projectIdOrPath: String(p), incidentIid: 5 }, ctx()))).toMatchObject({
      code: "NOT_FOUND",
    });
    expect((await client.getIngestStats({}, ctx())).processed).toBeGreaterThan(0);
  });

  it("Prometheus integrations take Alertmanager batches, one alert each, in order", async () => {
    const p = h.world.project();
    const i = h.world.integration(p, { type: "prometheus", name: "Prometheus" });
    const batch = {
      version: "4",
      groupKey: '{}:{alertname="HighCPU"}',
      status: "firing",
      receiver: "tocsin",
      groupLabels: {},
      commonLabels: {},
      commonAnnotations: {},
      externalURL: "http://am",
      alerts: [
        {
          status: "firing",
          labels: { alertname: "HighCPU", instance: "h1", severity: "page" },
          annotations: { title: "CPU high" },
          startsAt: "2026-11-21T09:00:00Z",
        },
        { status: "firing", labels: { alertname: "Disk", instance: "h2" }, annotations: {}, startsAt: "2026-11-21T09:00:00Z" },
        {
          status: "resolved",
          labels: { alertname: "HighCPU", instance: "h1", severity: "page" },
          annotations: { title: "CPU high" },
          startsAt: "2026-11-21T09:00:00Z",
          endsAt: "2026-11-21T09:10:00Z",
        },
      ],
    };
    const r = await ingest(p, i.id, batch);
    expect(r.fingerprints).toHaveLength(3);
    expect(r.fingerprints[0]).toBe(r.fingerprints[2]);
    expect(r.outcomes.map((o) => [o.iid, o.action, o.status])).toEqual([
      [1, "created", "triggered"],
      [2, "created", "triggered"],
      [1, "resolved", "resolved"],
    ]);
    expect((await client.getAlert({ projectIdOrPath: String(p), alertIid: 1 }, ctx())).alert).toMatchObject({
      title: "CPU high",
      severity: "high",
      monitoringTool: "Prometheus",
    });
    expect(await failure(ingest(p, i.id, { title: "not alertmanager" }))).toMatchObject({
      code: "INVALID_ARGUMENT",
      reason: "PAYLOAD_INVALID",
    });
  });
});

describe("with Redis unreachable", () => {
  it("ingest fails fast with UNAVAILABLE (QUEUE_UNAVAILABLE) and a retry-after", async () => {
    const { FakeWorld } = await import("./alert-processing.fixtures.js");
    const world = new FakeWorld();
    const Database = (await import("better-sqlite3")).default;
    const db = new Database(":memory:");
    const { FakeClock } = await import("@tocsin/testing");
    const rt = await createAlertsRuntime({
      sqlite: db,
      dataDir: "/tmp/unused",
      redisUrl: "redis://127.0.0.1:1",
      projects: world.projects,
      integrations: world.directory,
      clock: new FakeClock(),
      logger: silentLogger(),
    });
    const p = world.project();
    const i = world.integration(p);
    const err = await failure(rt.useCases.ingest({ projectId: p, integrationId: i.id, payloadJson: "{}", waitMs: 0 }, ctx()));
    expect(err).toMatchObject({ code: "UNAVAILABLE", reason: "QUEUE_UNAVAILABLE" });
    expect(err.retryAfterSeconds).toBeGreaterThan(0);
    expect(await rt.healthy()).toBe(false);
    await rt.stop();
    db.close();
  });
});
