import type { AppError, CallContext } from "@tocsin/core";
import { createClient } from "@tocsin/grpc";
import { alertV1 } from "@tocsin/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { amAlert, amWebhook, resolvedCopy } from "./alertmanager.fixtures.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { addMember, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";

/** The alerts list filters of issue 26 (severity, monitoring tool, service), unset. */
const NO_FILTERS = { severity: "", monitoringTool: "", service: "" };

/**
 * Over gRPC: custom mapping, payload fields, the Prometheus integration and
 * its batches, and the Opsgenie link, as internal services call alert-service.
 */
describe("custom mapping, Prometheus and Opsgenie over gRPC", () => {
  let sys: RunningSystem;
  let alert: ReturnType<typeof createClient<typeof alertV1.AlertServiceService>>;
  let maintainer: SeededUser;
  let developer: SeededUser;
  let project: SeededProject;
  let asMaintainer: CallContext;
  let asDeveloper: CallContext;
  const ref = () => ({ projectIdOrPath: project.path_with_namespace });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e as AppError,
    );

  beforeAll(async () => {
    sys = await startSystem();
    maintainer = await seedUser(sys.url, sys.adminToken, { username: "grpc-m" });
    developer = await seedUser(sys.url, sys.adminToken, { username: "grpc-d" });
    const group = await seedGroup(sys.url, sys.adminToken, { path: "grpc-org", plan: "ultimate" });
    await addMember(sys.url, sys.adminToken, "groups", group.id, maintainer.user.id, 40);
    project = await seedProject(sys.url, maintainer.token, { path: "svc", namespaceId: group.id });
    await addMember(sys.url, maintainer.token, "projects", project.id, developer.user.id, 30);
    alert = createClient(alertV1.AlertServiceService, { target: "alert", address: sys.alertAddr });
    asMaintainer = { requestId: "grpc-mapping", principal: { userId: maintainer.user.id } };
    asDeveloper = { requestId: "grpc-mapping", principal: { userId: developer.user.id } };
  });
  afterAll(async () => {
    alert?.close();
    await sys?.stop();
  });

  it("custom mapping: GitLab's array form in, the stored form out; bad input named; mapping_cleared", async () => {
    const created = await alert.createHttpIntegration(
      {
        ...ref(),
        name: "Mapped",
        active: true,
        payloadExampleJson: '{"alert":{"name":"x","at":"2026-11-20T10:00:00Z"}}',
        payloadAttributeMappingsJson: JSON.stringify([
          { fieldName: "TITLE", path: ["alert", "name"], type: "STRING", label: "alert/name" },
          { fieldName: "START_TIME", path: ["alert", "at"], type: "DATETIME" },
        ]),
      },
      asMaintainer,
    );
    const id = created.integration?.id ?? 0;
    expect(JSON.parse(created.integration?.payloadAttributeMappingsJson ?? "")).toEqual({
      title: { path: ["alert", "name"], type: "string", label: "alert/name" },
      start_time: { path: ["alert", "at"], type: "datetime" },
    });
    const update = (payloadExampleJson?: string, payloadAttributeMappingsJson?: string) =>
      alert.updateHttpIntegration(
        { ...ref(), integrationId: id, name: undefined, active: undefined, payloadExampleJson, payloadAttributeMappingsJson },
        asMaintainer,
      );
    expect(await failure(update(undefined, '{"nope":{"path":["a"],"type":"string"}}'))).toMatchObject({
      code: "INVALID_ARGUMENT",
      reason: "PAYLOAD_ATTRIBUTE_MAPPINGS_INVALID",
      message: expect.stringMatching(/unknown alert field 'nope'/),
    });
    expect(await failure(update(JSON.stringify({ blob: "x".repeat(1024 * 1024) })))).toMatchObject({
      code: "INVALID_ARGUMENT",
      reason: "PAYLOAD_EXAMPLE_INVALID",
      message: "payload_example is too big: at most 1 MiB of JSON",
    });
    const cleared = await update('{"other":"sample"}');
    expect(cleared.mappingCleared).toBe(true);
    expect(cleared.integration?.payloadAttributeMappingsJson).toBe("{}");
    const fields = await alert.parsePayloadFields({ ...ref(), payloadExampleJson: '{"a":[{"b":"2026-11-20"}]}' }, asMaintainer);
    expect(fields.fields).toEqual([
      { pathJson: '["a"]', label: "a", type: "array" },
      { pathJson: '["a",0,"b"]', label: "a[0]/b", type: "datetime" },
    ]);
    expect(await failure(alert.parsePayloadFields({ ...ref(), payloadExampleJson: "[]" }, asMaintainer))).toMatchObject({
      code: "INVALID_ARGUMENT",
      message: "payload_example must be a JSON object, not an array",
    });
    const off = await alert.updateHttpIntegration(
      {
        ...ref(),
        integrationId: id,
        name: undefined,
        active: false,
        payloadExampleJson: undefined,
        payloadAttributeMappingsJson: undefined,
      },
      asMaintainer,
    );
    expect(off).toMatchObject({ integration: { active: false }, mappingCleared: false });
  });

  it("Prometheus: key, activation, reset, and a batch answered per alert", async () => {
    const got = await alert.getPrometheusIntegration(ref(), asMaintainer);
    expect(got.integration).toMatchObject({
      type: "prometheus",
      active: false,
      url: expect.stringMatching(/\/grpc-org\/svc\/prometheus\/alerts\/notify\.json$/),
    });
    const on = await alert.updatePrometheusIntegration(
      { ...ref(), active: true, apiUrl: "https://prometheus.example.com" },
      asMaintainer,
    );
    expect(on.integration).toMatchObject({ active: true, apiUrl: "https://prometheus.example.com" });
    const reset = await alert.resetPrometheusIntegrationToken(ref(), asMaintainer);
    expect(reset.integration?.token).toMatch(/^[0-9a-f]{32}$/);
    expect(reset.integration?.token).not.toBe(on.integration?.token);
    const firing = [amAlert({ alertname: "A", instance: "h1" }), amAlert({ alertname: "B", instance: "h2" })];
    const ingest = (body: object, waitMs: number) =>
      alert.ingestAlert(
        {
          projectId: project.id,
          integrationId: got.integration?.id ?? 0,
          payloadJson: JSON.stringify(body),
          idempotencyKey: "",
          receivedAt: new Date(),
          waitMs,
          tier: "",
        },
        { requestId: `grpc-ingest-${waitMs}-${Math.random()}` },
      );
    const queued = await ingest(amWebhook(firing), 0);
    expect(queued.fingerprints).toHaveLength(2);
    expect(queued.fingerprints[0]).not.toBe(queued.fingerprints[1]);
    const done = await ingest(amWebhook(resolvedCopy(firing, "2026-11-20T11:00:00Z")), 10_000);
    expect(done.fingerprints).toEqual(queued.fingerprints);
    expect(done.outcomes.map((o) => [o.title, o.status, o.action])).toEqual([
      ["A", "resolved", "resolved"],
      ["B", "resolved", "resolved"],
    ]);
    expect(await failure(ingest({ title: "generic" }, 0))).toMatchObject({
      code: "INVALID_ARGUMENT",
      message: expect.stringMatching(/^The payload is not an Alertmanager webhook \(version 4\): it lacks version/),
    });
    await alert.updatePrometheusIntegration({ ...ref(), active: false, apiUrl: undefined }, asMaintainer);
  });

  it("Opsgenie: URL checked, Maintainer+, exclusive both ways, and the alerts list carries its URL", async () => {
    expect(
      await failure(alert.updateOpsgenieIntegration({ ...ref(), active: false, apiUrl: "ftp://x.example" }, asMaintainer)),
    ).toMatchObject({
      code: "INVALID_ARGUMENT",
      reason: "API_URL_INVALID",
      message: "api_url must use http or https, not ftp",
    });
    expect(
      await failure(alert.updateOpsgenieIntegration({ ...ref(), active: true, apiUrl: "https://o.example" }, asDeveloper)),
    ).toMatchObject({
      code: "PERMISSION_DENIED",
    });
    await alert.updatePrometheusIntegration({ ...ref(), active: true, apiUrl: undefined }, asMaintainer);
    expect(
      await failure(alert.updateOpsgenieIntegration({ ...ref(), active: true, apiUrl: "https://o.example" }, asMaintainer)),
    ).toMatchObject({
      code: "INVALID_ARGUMENT",
      reason: "OTHER_INTEGRATION_ACTIVE",
    });
    await alert.updatePrometheusIntegration({ ...ref(), active: false, apiUrl: undefined }, asMaintainer);
    const on = await alert.updateOpsgenieIntegration(
      { ...ref(), active: true, apiUrl: "https://o.example/alert/list" },
      asMaintainer,
    );
    expect(on.integration).toMatchObject({
      type: "opsgenie",
      active: true,
      apiUrl: "https://o.example/alert/list",
      token: "",
      url: "",
    });
    expect(
      await failure(alert.updatePrometheusIntegration({ ...ref(), active: true, apiUrl: undefined }, asMaintainer)),
    ).toMatchObject({
      code: "INVALID_ARGUMENT",
      reason: "OPSGENIE_ACTIVE",
    });
    const alerts = await alert.listAlerts(
      { ...ref(), status: "", search: "", ...NO_FILTERS, orderBy: "created_at", sort: "desc", page: 1, perPage: 20 },
      asDeveloper,
    );
    expect(alerts.opsgenieUrl).toBe("https://o.example/alert/list");
    const list = await alert.listIntegrations(ref(), asMaintainer);
    expect(list.integrations.map((i) => [i.type, i.name, i.active])).toEqual([
      ["http", "Mapped", false],
      ["prometheus", "Prometheus", false],
      ["opsgenie", "Opsgenie", true],
    ]);
  });
});
