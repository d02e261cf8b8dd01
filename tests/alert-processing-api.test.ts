import { AppError, silentLogger } from "@tocsin/core";
import { createClient, createGrpcServer, type ServiceHandlers } from "@tocsin/grpc";
import { alertV1, PROTO_FILES } from "@tocsin/proto";
import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAlertsRuntime } from "../alert-service/src/alerts-runtime.js";
import { alertHandlers } from "../alert-service/src/handlers/alerts.js";
import { ctx, type Harness, startHarness } from "./alert-processing.fixtures.js";

/** The alerts list filters of issue 26 (severity, monitoring tool, service), unset. */
const NO_FILTERS = { severity: "", monitoringTool: "", service: "" };

type Def = typeof alertV1.AlertServiceService;
const def = alertV1.AlertServiceService;

async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (AppError.is(err)) return err;
    throw err;
  }
  throw new Error("expected a failure");
}

describe("alert use-cases over real gRPC (SQLite, SQLite queue)", () => {
  let h: Harness;
  const server = createGrpcServer({
    logger: silentLogger(),
    protoFiles: [PROTO_FILES.alert],
    serviceNames: ["alert.v1.AlertService"],
  });
  let client: ReturnType<typeof createClient<Def>>;

  beforeAll(async () => {
    h = await startHarness("sqlite", "local", { mongoUrl: "", redisUrl: "" });
    const unimplemented = async () => {
      throw new AppError("UNIMPLEMENTED", "UNIMPLEMENTED", "501 Not Implemented");
    };
    const all = Object.fromEntries(Object.keys(def).map((k) => [k, unimplemented]));
    server.add(def, { ...all, ...alertHandlers(h.runtime.useCases) } as unknown as ServiceHandlers<Def>);
    const port = await server.listen("127.0.0.1:0");
    server.setServing(true);
    client = createClient(def, { target: "alert", address: `127.0.0.1:${port}` });
  });
  afterAll(async () => {
    client?.close();
    await server.shutdown(1000);
    await h?.close();
  });

  const ingest = (projectId: number, integrationId: number, payload: unknown, extra: Partial<alertV1.IngestAlertRequest> = {}) =>
    client.ingestAlert(
      {
        projectId,
        integrationId,
        payloadJson: JSON.stringify(payload),
        idempotencyKey: "",
        receivedAt: undefined,
        waitMs: 5000,
        tier: "",
        ...extra,
      },
      ctx(),
    );

  it("ingests, answers with fingerprints and outcomes, and lists with details", async () => {
    const p = h.world.project("free");
    const i = h.world.integration(p, { name: "Checks" });
    const queued = await ingest(p, i.id, { title: "Queued only", fingerprint: "q" }, { waitMs: 0 });
    expect(queued).toMatchObject({
      processed: false,
      outcomes: [],
      replayed: false,
      fingerprints: ["22ea1c649c82946aa6e479e1ffd321e4a318b1b0"],
    });
    const r = await ingest(p, i.id, { title: "CPU", severity: "HIGH", hosts: ["a", ["b"]], custom: { deep: [1] } });
    expect(r.processed).toBe(true);
    expect(r.fingerprints).toEqual([""]);
    const list = await client.listAlerts(
      { projectIdOrPath: String(p), status: "", search: "cpu", ...NO_FILTERS, orderBy: "", sort: "", page: 0, perPage: 0 },
      ctx(),
    );
    expect(list.total).toBe(1);
    expect(list.alerts[0]).toMatchObject({
      title: "CPU",
      severity: "high",
      hosts: ["a", "b"],
      status: "triggered",
      payloadJson: "",
      activity: [],
    });
    expect(list.opsgenieUrl).toBe("");
    const { alert } = await client.getAlert({ projectIdOrPath: String(p), alertIid: list.alerts[0]?.iid ?? 0 }, ctx());
    expect(JSON.parse(alert?.payloadJson ?? "{}")).toEqual({
      title: "CPU",
      severity: "HIGH",
      hosts: ["a", ["b"]],
      custom: { deep: [1] },
    });
    expect(alert?.activity.map((e) => e.note)).toEqual(["logged an alert from **Checks**"]);
    h.world.opsgenie.set(p, "https://app.opsgenie.com/alert");
    expect(
      (
        await client.listAlerts(
          { projectIdOrPath: String(p), status: "", search: "", ...NO_FILTERS, orderBy: "", sort: "", page: 1, perPage: 20 },
          ctx(),
        )
      ).opsgenieUrl,
    ).toBe("https://app.opsgenie.com/alert");
  });

  it("rejects bad payloads, unknown and inactive integrations", async () => {
    const p = h.world.project();
    const i = h.world.integration(p);
    expect(await failure(ingest(p, i.id, [1, 2]))).toMatchObject({ code: "INVALID_ARGUMENT", reason: "PAYLOAD_INVALID" });
    expect(
      await failure(
        client.ingestAlert(
          {
            projectId: p,
            integrationId: i.id,
            payloadJson: "{nope",
            idempotencyKey: "",
            receivedAt: undefined,
            waitMs: 0,
            tier: "",
          },
          ctx(),
        ),
      ),
    ).toMatchObject({ reason: "PAYLOAD_INVALID" });
    expect(await failure(ingest(p, 99_999, {}))).toMatchObject({ code: "NOT_FOUND" });
    const off = h.world.integration(p, { active: false });
    expect(await failure(ingest(p, off.id, {}))).toMatchObject({ code: "PERMISSION_DENIED", reason: "INTEGRATION_INACTIVE" });
  });

  it("status changes: activity, ended_at, invalid values and the one-open rule", async () => {
    const p = h.world.project();
    const i = h.world.integration(p);
    await ingest(p, i.id, { fingerprint: "same" });
    const base = { projectIdOrPath: String(p), alertIid: 1 };
    const ack = await client.updateAlertStatus({ ...base, status: "acknowledged" }, ctx());
    expect(ack.alert).toMatchObject({ status: "acknowledged", endedAt: undefined });
    const resolved = await client.updateAlertStatus({ ...base, status: "resolved" }, ctx());
    expect(resolved.alert?.endedAt).toBeInstanceOf(Date);
    await ingest(p, i.id, { fingerprint: "same" });
    const err = await failure(client.updateAlertStatus({ ...base, status: "triggered" }, ctx()));
    expect(err).toMatchObject({ code: "ABORTED", reason: "OPEN_ALERT_EXISTS" });
    expect(err.message).toContain("#2");
    expect(await failure(client.updateAlertStatus({ ...base, status: "closed" }, ctx()))).toMatchObject({
      code: "INVALID_ARGUMENT",
      reason: "PARAM_VALUE_INVALID",
      message: "status does not have a valid value",
    });
    expect(await failure(client.updateAlertStatus({ ...base, alertIid: 77, status: "resolved" }, ctx()))).toMatchObject({
      code: "NOT_FOUND",
    });
    const { alert } = await client.getAlert(base, ctx());
    expect(alert?.activity.map((e) => e.note)).toEqual([
      "logged an alert from **Generic Alert Endpoint**",
      "changed the status to **Acknowledged**",
      "changed the status to **Resolved**",
    ]);
    await client.updateAlertStatus({ ...base, alertIid: 2, status: "ignored" }, ctx());
    expect(
      await failure(
        client.listAlerts(
          { projectIdOrPath: String(p), status: "bogus", search: "", ...NO_FILTERS, orderBy: "", sort: "", page: 1, perPage: 20 },
          ctx(),
        ),
      ),
    ).toMatchObject({ reason: "PARAM_VALUE_INVALID" });
    const ignored = await client.listAlerts(
      {
        projectIdOrPath: String(p),
        status: "ignored",
        search: "",
        ...NO_FILTERS,
        orderBy: "iid",
        sort: "asc",
        page: 1,
        perPage: 20,
      },
      ctx(),
    );
    expect(ignored.alerts.map((a) => a.iid)).toEqual([2]);
  });

  it("roles: Developer+ reads alerts and sends test alerts, Maintainer+ changes settings", async () => {
    const p = h.world.project("free", 30);
    const i = h.world.integration(p);
    await client.listAlerts(
      { projectIdOrPath: String(p), status: "", search: "", ...NO_FILTERS, orderBy: "", sort: "", page: 1, perPage: 20 },
      ctx(),
    );
    expect(await failure(client.getAlertSettings({ projectIdOrPath: String(p) }, ctx()))).toMatchObject({
      code: "PERMISSION_DENIED",
    });
    const sent = await client.sendTestAlert(
      { projectIdOrPath: String(p), integrationId: i.id, payloadJson: '{"title":"hi"}', dryRun: false },
      ctx(),
    );
    expect(sent.message).toBe("The test alert should now be visible in your alerts list.");
    const reporter = h.world.project("free", 20);
    expect(
      await failure(
        client.listAlerts(
          {
            projectIdOrPath: String(reporter),
            status: "",
            search: "",
            ...NO_FILTERS,
            orderBy: "",
            sort: "",
            page: 1,
            perPage: 20,
          },
          ctx(),
        ),
      ),
    ).toMatchObject({ code: "PERMISSION_DENIED" });
    expect(await failure(client.getAlert({ projectIdOrPath: "424242424", alertIid: 1 }, ctx()))).toMatchObject({
      code: "NOT_FOUND",
      message: "404 Project Not Found",
    });
  });

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
