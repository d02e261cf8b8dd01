import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ctx, type Harness } from "./alert-processing.fixtures.js";
import { type AlertClient, failure, ingestVia, NO_FILTERS, servedUseCases } from "./alert-processing-api.fixtures.js";

/**
 * Alert use-cases over real gRPC (SQLite, SQLite queue): ingest with its answers, the list and the
 * details, bad payloads and integrations, status changes, and the roles. Test alerts, settings,
 * Prometheus batches and an unreachable Redis: tests/alert-processing-api-test-alerts.test.ts.
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
});
