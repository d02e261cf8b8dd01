import { tracingLoaded } from "@tocsin/telemetry";
import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import {
  bearer,
  CLIENT,
  CONSUMER,
  PRODUCER,
  pathOf,
  postAlert,
  type ReceivedSpan,
  type Receiver,
  SERVER,
  type Seeded,
  seed,
  startReceiver,
} from "./tracing.fixtures.js";
import { rawPost } from "./webhook-client.js";

/**
 * Traces (issue 11): with OTEL_EXPORTER_OTLP_ENDPOINT set every process exports its spans over
 * OTLP/HTTP (JSON) to a real receiver started here, and one trace follows an alert from the
 * webhook to its processing and e-mail recipients, and a REST call through its gRPC calls. With
 * the variable unset the SDK is never loaded and nothing is exported.
 */

describe("tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset)", () => {
  let receiver: Receiver;
  let sys: RunningSystem;

  beforeAll(async () => {
    receiver = await startReceiver();
    sys = await startSystem({ env: { OTEL_BSP_SCHEDULE_DELAY: "10" } });
  });
  afterAll(async () => {
    await sys?.stop();
    await receiver?.close();
  });

  it("never loads the OpenTelemetry SDK and exports nothing", async () => {
    const seeded = await seed(sys);
    await postAlert(sys, seeded, "untraced alert");
    expect(tracingLoaded()).toBe(false);
    expect(receiver.bodies).toEqual([]);
  });
});

const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
const backends: Array<[string, Record<string, string>]> = [["embedded store, in-process queue", {}]];
if (mongoUrl && redisUrl) backends.push(["MongoDB, BullMQ", { MONGO_URL: mongoUrl, REDIS_URL: redisUrl }]);
else console.warn("[tracing] MongoDB or Redis unavailable: the MongoDB + BullMQ variant is SKIPPED");

describe.each(backends)("tracing on, exported to an OTLP/HTTP receiver (%s)", (_name, env) => {
  let receiver: Receiver;
  let sys: RunningSystem;
  let seeded: Seeded;

  const byId = (id: string) => receiver.spans.find((s) => s.spanId === id);
  /** The one span matching `where` whose parent is `parent` (fails the test otherwise). */
  const childOf = (parent: ReceivedSpan, where: Partial<Pick<ReceivedSpan, "name" | "kind" | "service">>) => {
    const found = receiver.spans.filter(
      (s) =>
        s.parentSpanId === parent.spanId &&
        (where.name === undefined || s.name === where.name) &&
        (where.kind === undefined || s.kind === where.kind) &&
        (where.service === undefined || s.service === where.service),
    );
    expect(found, `${JSON.stringify(where)} under ${parent.name}`).toHaveLength(1);
    const span = found[0] as ReceivedSpan;
    expect(span.traceId).toBe(parent.traceId);
    return span;
  };
  const waitForChild = (parent: () => ReceivedSpan | undefined, name: string) =>
    until(() => {
      const p = parent();
      return p && receiver.spans.find((s) => s.parentSpanId === p.spanId && s.name === name);
    });

  beforeAll(async () => {
    receiver = await startReceiver();
    // Every alert mails (no storm digest), so that each asks settings-service for its recipients.
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "10", MAIL_STORM_LIMIT: "1000" };
    sys = await startSystem({ env: { ...env, ...otel } });
    seeded = await seed(sys);
  });
  afterAll(async () => {
    await sys?.stop();
    await receiver?.close();
  });

  it("loads the SDK only now", () => {
    expect(tracingLoaded()).toBe(true);
  });

  it("follows an alert: webhook → gRPC hop → enqueue → processing → e-mail recipients, one trace", async () => {
    const path = pathOf(seeded.integration.url);
    await postAlert(sys, seeded, "traced alert");
    const webhook = () =>
      receiver.spans.find((s) => s.service === "gateway" && s.kind === SERVER && s.attributes["url.path"] === path);
    // The spans of the alert's processing and of its e-mail job arrive as each process exports
    // them: wait until the recipients call's ancestry reaches a root (a span without a parent).
    const ancestry = (from: ReceivedSpan) => {
      const chain: ReceivedSpan[] = [];
      for (let s: ReceivedSpan | undefined = from; s; s = s.parentSpanId ? byId(s.parentSpanId) : undefined) chain.push(s);
      return chain;
    };
    const resolveRecipients = await until(() => {
      const span = receiver.spans.find(
        (s) => s.service === "settings-service" && s.name === "settings.v1.SettingsService/ResolveAlertRecipients",
      );
      return span && ancestry(span).at(-1)?.parentSpanId === "" && span;
    });
    const gatewaySpan = webhook();
    expect(gatewaySpan).toBeDefined();
    const root = gatewaySpan as ReceivedSpan;
    expect(ancestry(resolveRecipients).at(-1)).toBe(root);
    expect(root.parentSpanId).toBe("");
    expect(root.attributes).toMatchObject({ "http.request.method": "POST", "http.response.status_code": 202 });
    expect(root.name).toBe("POST /:full_path/alerts/notify/:name/:endpoint_identifier");
    expect(root.attributes["http.route"]).toBe("/:full_path/alerts/notify/:name/:endpoint_identifier");

    // The webhook's call is an item of the micro-batched IngestAlerts stream, traced as a call of its own.
    const ingest = "alert.v1.AlertService/IngestAlerts";
    const client = childOf(root, { name: ingest, kind: CLIENT, service: "gateway" });
    expect(client.attributes).toMatchObject({
      "rpc.system": "grpc",
      "rpc.service": "alert.v1.AlertService",
      "rpc.method": "IngestAlerts",
      "rpc.grpc.status_code": 0,
    });
    const server = childOf(client, { name: ingest, kind: SERVER, service: "alert-service" });
    expect(server.attributes).toMatchObject({ "rpc.system": "grpc", "rpc.grpc.status_code": 0 });
    // The project's tier came with the gateway's endpoint look-up (issue 21): ingest asks
    // auth-service for nothing.
    expect(receiver.spans.filter((s) => s.parentSpanId === server.spanId && s.name.startsWith("auth.v1."))).toEqual([]);
    const enqueue = childOf(server, { name: "send alerts", kind: PRODUCER, service: "alert-service" });
    expect(enqueue.attributes).toMatchObject({ "messaging.operation.type": "send", "tocsin.job.name": "process-alert" });
    expect(enqueue.attributes["messaging.system"]).toBe(env.REDIS_URL ? "bullmq" : "local");
    const processing = await waitForChild(() => enqueue, "process alerts");
    expect(processing).toMatchObject({ kind: CONSUMER, service: "alert-service", traceId: root.traceId });
    expect(processing.attributes).toMatchObject({ "messaging.operation.type": "process", "tocsin.job.name": "process-alert" });

    // Processing's own work joins the trace: the e-mail job it enqueues, that job's run and its
    // gRPC call to settings-service (whose server span is in settings-service's resource).
    expect(resolveRecipients.traceId).toBe(root.traceId);
    expect(ancestry(resolveRecipients).map((s) => `${s.service} ${s.name}`)).toEqual([
      "settings-service settings.v1.SettingsService/ResolveAlertRecipients",
      "alert-service settings.v1.SettingsService/ResolveAlertRecipients",
      "alert-service process mail",
      "alert-service send mail",
      "alert-service process alerts",
      "alert-service send alerts",
      `alert-service ${ingest}`,
      `gateway ${ingest}`,
      `gateway ${root.name}`,
    ]);
  });

  it("keeps each alert in its own trace when its jobs run in one batch with others", async () => {
    const path = pathOf(seeded.integration.url);
    const isWebhook = (s: ReceivedSpan) => s.service === "gateway" && s.kind === SERVER && s.attributes["url.path"] === path;
    const isRecipients = (s: ReceivedSpan) =>
      s.service === "settings-service" && s.name === "settings.v1.SettingsService/ResolveAlertRecipients";
    const rootOf = (from: ReceivedSpan) => {
      let s = from;
      for (let p = byId(s.parentSpanId); p; p = byId(s.parentSpanId)) s = p;
      return s;
    };
    const batched = () =>
      receiver.spans.some((s) => s.name === "process alerts" && Number(s.attributes["messaging.batch.message_count"]) > 1);
    // Concurrent posts travel in one stream message and one group commit, so a lane's worker
    // takes several of their jobs at once (the SQLite queue's batches; with BullMQ, the lane
    // batch: the head job and the jobs waiting behind it); more rounds until a batch of several
    // was seen.
    for (let round = 0; round < 5 && !batched(); round++) {
      const before = receiver.spans.filter(isWebhook).length;
      const posts = Array.from({ length: 24 }, (_, i) =>
        rawPost(sys.url, path, JSON.stringify({ title: `batch ${round}-${i}` }), bearer(seeded.integration.token)),
      );
      for (const res of await Promise.all(posts)) expect(res.status).toBe(202);
      // Every alert's e-mail job asked for recipients, and each such call's ancestry is complete.
      await until(() => {
        const roots = receiver.spans.filter(isRecipients).map(rootOf);
        return (
          roots.length >= before + 24 &&
          roots.every((r) => r.parentSpanId === "") &&
          receiver.spans.filter(isWebhook).length >= before + 24
        );
      });
    }
    expect(batched()).toBe(true);
    // One recipients call per alert, each under its own webhook request: no trace got another's.
    const roots = receiver.spans.filter(isRecipients).map((s) => rootOf(s).spanId);
    const webhooks = receiver.spans.filter(isWebhook).map((s) => s.spanId);
    expect(new Set(roots).size).toBe(roots.length);
    expect([...roots].sort()).toEqual([...webhooks].sort());
  }, 60_000);

  it("joins a caller's traceparent, marks failures by their codes, and leaves probes untraced", async () => {
    // The probe, until it answers 200 (on a loaded machine a dependency's check can time out once).
    await until(async () => (await fetch(`${sys.url}/-/readiness`)).status === 200);
    const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const callerSpan = "00f067aa0ba902b7";
    const res = await api(sys.url, seeded.owner.token).get("/api/v4/projects/999999/alert_management/alerts", {
      traceparent: `00-${callerTrace}-${callerSpan}-01`,
    });
    expect(res.status).toBe(404);
    const root = await until(() =>
      receiver.spans.find((s) => s.service === "gateway" && s.kind === SERVER && s.traceId === callerTrace),
    );
    expect(root).toMatchObject({ parentSpanId: callerSpan, name: "GET /api/v4/projects/:id/alert_management/alerts" });
    // A 4xx is the caller's fault: not an error of the server span (status code unset).
    expect(root.attributes["http.response.status_code"]).toBe(404);
    expect(root.statusCode).toBe(0);
    const list = "alert.v1.AlertService/ListAlerts";
    const client = await waitForChild(() => root, list);
    const server = await waitForChild(() => client, list);
    // NOT_FOUND (5): an error on the client side, not a fault of the server.
    expect(client).toMatchObject({
      kind: CLIENT,
      statusCode: 2,
      attributes: expect.objectContaining({ "rpc.grpc.status_code": 5 }),
    });
    expect(server).toMatchObject({
      kind: SERVER,
      statusCode: 0,
      attributes: expect.objectContaining({ "rpc.grpc.status_code": 5 }),
    });
    // The probe ended before the request above, so it would have been exported by now.
    expect(receiver.spans.filter((s) => s.attributes["url.path"] === "/-/readiness")).toEqual([]);
  });

  it("follows a REST call through its gRPC calls, and exports no secret", async () => {
    const route = "/api/v4/projects/:id/notification_settings";
    const res = await api(sys.url, seeded.owner.token).put(`/api/v4/projects/${seeded.project.id}/notification_settings`, {
      level: "watch",
    });
    expect(res.status, res.text).toBe(200);
    const root = await until(() =>
      receiver.spans.find((s) => s.service === "gateway" && s.kind === SERVER && s.attributes["http.route"] === route),
    );
    expect(root).toMatchObject({ name: `PUT ${route}`, parentSpanId: "" });
    expect(root.attributes).toMatchObject({ "http.request.method": "PUT", "http.response.status_code": 200 });
    const update = "settings.v1.SettingsService/UpdateSourceSetting";
    const client = await waitForChild(() => root, update);
    expect(client).toMatchObject({ kind: CLIENT, service: "gateway" });
    const server = await waitForChild(() => client, update);
    expect(server).toMatchObject({ kind: SERVER, service: "settings-service", traceId: root.traceId });
    // settings-service asks auth-service about the project: its client span, then auth's server span.
    const authClient = await until(() =>
      receiver.spans.find(
        (s) => s.parentSpanId === server.spanId && s.kind === CLIENT && s.name.startsWith("auth.v1.AuthService/"),
      ),
    );
    const authServer = await waitForChild(() => authClient, authClient.name);
    expect(authServer).toMatchObject({ kind: SERVER, service: "auth-service", traceId: root.traceId });

    // Each process exports under its own service.name (the default: its process name).
    expect(new Set(receiver.spans.map((s) => s.service))).toEqual(
      new Set(["gateway", "auth-service", "alert-service", "settings-service"]),
    );
    // Names, ids and codes only: no key, token or payload left the processes.
    const exported = receiver.bodies.join("\n");
    for (const secret of [seeded.integration.token, seeded.owner.token, sys.adminToken, "traced alert"]) {
      expect(exported).not.toContain(secret);
    }
  });
});
