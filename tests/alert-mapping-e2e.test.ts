import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { datadogPayload, grafanaPayload, zabbixPayload } from "./alert-mapping.fixtures.js";
import { api } from "./api.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";
import { rawPost } from "./webhook-client.js";

/**
 * Custom mapping end to end (issue 5, item 1): a Premium project takes a sample payload from
 * its monitor, picks fields from `POST /payload_fields`, saves the mapping, and then the monitor's
 * alerts (and their recoveries, through the mapped end time) go through the webhook.
 */
const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");

interface Field {
  path: Array<string | number>;
  label: string;
  type: string;
}

describe("custom mapping, end to end", () => {
  let sys: RunningSystem;
  let owner: SeededUser;
  let project: SeededProject;
  const mgmt = () => `/api/v4/projects/${project.id}/alert_management`;
  const as = () => api(sys.url, owner.token);

  /**
   * What a user does in the settings: parse the sample, pick a field by label per alert field.
   * A pick `[label, "string"]` reads a field offered as `datetime` (an id that starts with four
   * digits, as the reference's extractor types it) as text: the mapping says so explicitly.
   */
  async function integrationFromSample(name: string, sample: object, picks: Record<string, string | [string, string]>) {
    const fields = await as().post(`${mgmt()}/payload_fields`, { payload_example: JSON.stringify(sample) });
    expect(fields.status, fields.text).toBe(200);
    const mapping: Record<string, Field> = {};
    for (const [alertField, pick] of Object.entries(picks)) {
      const [label, type] = typeof pick === "string" ? [pick, undefined] : pick;
      const field = (fields.body as Field[]).find((f) => f.label === label);
      if (!field) throw new Error(`no payload field ${label}`);
      mapping[alertField] = type ? { ...field, type } : field;
    }
    const created = await as().post(`${mgmt()}/http_integrations`, {
      name,
      active: true,
      payload_example: sample,
      payload_attribute_mappings: mapping,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.payload_attribute_mappings).toEqual(mapping);
    return created.body as { id: number; url: string; token: string };
  }

  /** Posts through the webhook and waits for processing: the one alert's outcome. */
  async function send(integration: { url: string; token: string }, payload: object) {
    const res = await rawPost(sys.url, new URL(integration.url).pathname, JSON.stringify(payload), {
      authorization: `Bearer ${integration.token}`,
      prefer: "wait=10",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body[0] as { iid: number; title: string; status: string; events: number };
  }

  const details = async (iid: number) => (await as().get(`${mgmt()}/alerts/${iid}`)).body;

  beforeAll(async () => {
    sys = await startSystem();
    owner = await seedUser(sys.url, sys.adminToken, { username: "ops" });
    const group = await seedGroup(sys.url, sys.adminToken, { path: "acme", plan: "premium" });
    await api(sys.url, sys.adminToken).post(`/api/v4/groups/${group.id}/members`, { user_id: owner.user.id, access_level: 50 });
    project = await seedProject(sys.url, owner.token, { path: "shop", namespaceId: group.id });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("Datadog: mapped from a recovery sample; triggers, groups on alert_id, resolves through recovered_at", async () => {
    // alert_id "98765432" starts with four digits: offered as datetime, which fingerprint does not take.
    const offered = await as().post(`${mgmt()}/payload_fields`, { payload_example: datadogPayload("Recovered") });
    expect(offered.body).toContainEqual({ path: ["alert_id"], label: "alert_id", type: "datetime" });
    const refused = await as().post(`${mgmt()}/http_integrations`, {
      name: "Datadog refused",
      payload_attribute_mappings: { fingerprint: { path: ["alert_id"], type: "datetime" } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/fingerprint.*type "datetime"; allowed for fingerprint: string, array/);
    const dd = await integrationFromSample("Datadog", datadogPayload("Recovered"), {
      title: "alert_title",
      description: "body",
      start_time: "last_updated",
      end_time: "recovered_at",
      hosts: "hostname",
      fingerprint: ["alert_id", "string"],
    });
    const dry = await as().post(`${mgmt()}/http_integrations/${dd.id}/test_alert?dry_run=true`, datadogPayload("Triggered"));
    expect(dry.body.dry_run).toMatchObject({ action: "create", fingerprint: sha1("98765432") });
    expect(dry.body.dry_run.alert).toMatchObject({ title: "CPU load is high on web-1", hosts: ["web-1"] });

    const first = await send(dd, datadogPayload("Triggered"));
    expect(first).toMatchObject({ title: "CPU load is high on web-1", status: "triggered", events: 1 });
    expect(await details(first.iid)).toMatchObject({
      description: datadogPayload("Triggered").body,
      hosts: ["web-1"],
      severity: "critical",
      started_at: "2026-11-20T10:00:00.000Z",
      ended_at: null,
      fingerprint: sha1("98765432"),
    });
    // `recovered_at` is blank on a trigger: it falls back to `end_time` (absent): no recovery.
    expect(await send(dd, datadogPayload("Triggered"))).toMatchObject({ iid: first.iid, status: "triggered", events: 2 });
    const recovery = await send(dd, datadogPayload("Recovered"));
    expect(recovery).toMatchObject({ iid: first.iid, status: "resolved", events: 2 });
    const resolved = await details(first.iid);
    expect(resolved).toMatchObject({ ended_at: "2026-11-20T10:25:00.000Z", started_at: "2026-11-20T10:00:00.000Z" });
    expect(resolved.activity.map((a: { note: string }) => a.note)).toEqual([
      "logged an alert from **Datadog**",
      "logged a recovery alert from **Datadog**",
      "changed the status to **Resolved**",
    ]);
  });

  it("Grafana: array paths into alerts[0]; Go's zero endsAt keeps it firing; the resolved webhook resolves", async () => {
    const grafana = await integrationFromSample("Grafana", grafanaPayload("resolved"), {
      title: "alerts[0]/labels/alertname",
      description: "alerts[0]/annotations/description",
      start_time: "alerts[0]/startsAt",
      end_time: "alerts[0]/endsAt",
      severity: "alerts[0]/labels/severity",
      hosts: "alerts[0]/labels/instance",
      service: "alerts[0]/labels/service",
      fingerprint: "alerts[0]/fingerprint",
    });
    const got = await as().get(`${mgmt()}/http_integrations/${grafana.id}`);
    expect(got.body.payload_attribute_mappings.title).toEqual({
      path: ["alerts", 0, "labels", "alertname"],
      label: "alerts[0]/labels/alertname",
      type: "string",
    });
    const firing = await send(grafana, grafanaPayload("firing"));
    expect(firing).toMatchObject({ title: "HighLatency", status: "triggered", events: 1 });
    expect(await details(firing.iid)).toMatchObject({
      description: "The p99 latency of checkout-api has been above 2s for 5 minutes.",
      severity: "high",
      hosts: ["api-1:8080"],
      service: "checkout-api",
      fingerprint: sha1("57c6d9296de2ad39"),
      started_at: "2026-11-20T10:00:00.000Z",
    });
    const resolved = await send(grafana, grafanaPayload("resolved"));
    expect(resolved).toMatchObject({ iid: firing.iid, status: "resolved" });
    expect((await details(firing.iid)).ended_at).toBe("2026-11-20T10:20:00.000Z");
  });

  it("Zabbix: dotted dates, a tag inside an array; unexpanded recovery macros do not resolve", async () => {
    const zabbix = await integrationFromSample("Zabbix", zabbixPayload(true), {
      title: "event/name",
      description: "trigger/description",
      start_time: "event/started",
      end_time: "event/recovered",
      severity: "event/severity",
      hosts: "host/name",
      service: "event/tags[0]/value",
      monitoring_tool: "source",
      fingerprint: ["event/id", "string"],
    });
    const problem = await send(zabbix, zabbixPayload(false));
    expect(problem).toMatchObject({ title: "High CPU utilization (over 90% for 5m)", status: "triggered" });
    const alert = await details(problem.iid);
    expect(alert).toMatchObject({
      description: "CPU utilization is too high",
      severity: "high",
      hosts: ["zbx-web-01"],
      service: "checkout",
      monitoring_tool: "Zabbix 7.0",
      started_at: "2026-11-20T10:00:00.000Z",
      ended_at: null,
      fingerprint: sha1("8812"),
    });
    expect(alert.payload).toEqual(zabbixPayload(false));
    const recovery = await send(zabbix, zabbixPayload(true));
    expect(recovery).toMatchObject({ iid: problem.iid, status: "resolved" });
    const resolved = await details(problem.iid);
    expect(resolved.ended_at).toBe("2026-11-20T10:40:00.000Z");
    expect(resolved.activity[0].note).toBe("logged an alert from **Zabbix 7.0**");
  });

  it("a missing or blank mapped value falls back to the default key, then to the default value", async () => {
    const mapping = {
      title: { path: ["check", "name"], type: "string" },
      severity: { path: ["check", "level"], type: "string" },
      end_time: { path: ["check", "cleared"], type: "datetime" },
      hosts: { path: ["check", "nodes"], type: "array" },
    };
    const created = await as().post(`${mgmt()}/http_integrations`, {
      name: "Fallbacks",
      active: true,
      payload_attribute_mappings: mapping,
    });
    expect(created.status, created.text).toBe(201);
    const i = created.body;
    const mapped = await send(i, { check: { name: "Mapped", level: "LOW", nodes: ["n1", ["n2"]] }, title: "Default key" });
    expect(await details(mapped.iid)).toMatchObject({ title: "Mapped", severity: "low", hosts: ["n1", "n2"] });
    const blank = await send(i, {
      check: { name: "  ", level: "", nodes: [] },
      title: "Default key",
      severity: "info",
      hosts: "h",
    });
    expect(await details(blank.iid)).toMatchObject({ title: "Default key", severity: "info", hosts: ["h"] });
    const none = await send(i, { check: {} });
    expect(await details(none.iid)).toMatchObject({ title: "New: Alert", severity: "critical", hosts: [] });
    // An unparsable mapped end time falls back to `end_time`; with neither, no recovery.
    const byDefault = await send(i, { check: { name: "Ends", cleared: "soon" }, end_time: "2026-11-20T11:00:00Z" });
    expect(byDefault.status).toBe("resolved");
    expect((await details(byDefault.iid)).ended_at).toBe("2026-11-20T11:00:00.000Z");
    const byMapping = await send(i, { check: { name: "Ends", cleared: "2026-11-20T12:00:00+01:00" } });
    expect((await details(byMapping.iid)).ended_at).toBe("2026-11-20T11:00:00.000Z");
  });

  it("without a mapped fingerprint, grouping ignores the mapped start time, end time and hosts", async () => {
    const created = await as().post(`${mgmt()}/http_integrations`, {
      name: "Auto grouping",
      active: true,
      payload_attribute_mappings: {
        title: { path: ["check"], type: "string" },
        start_time: { path: ["when", "start"], type: "datetime" },
        end_time: { path: ["when", "end"], type: "datetime" },
        hosts: { path: ["where"], type: "string" },
      },
    });
    const i = created.body;
    const first = await send(i, { check: "Queue depth", when: { start: "2026-11-20T10:00:00Z" }, where: "mq-1" });
    const again = await send(i, { check: "Queue depth", when: { start: "2026-11-20T10:05:00Z" }, where: "mq-2" });
    expect(again).toMatchObject({ iid: first.iid, events: 2, status: "triggered" });
    const other = await send(i, { check: "Queue depth", when: { start: "2026-11-20T10:05:00Z" }, where: "mq-2", queue: "b" });
    expect(other.iid).not.toBe(first.iid);
    const recovery = await send(i, {
      check: "Queue depth",
      when: { start: "2026-11-20T10:00:00Z", end: "2026-11-20T10:30:00Z" },
      where: "mq-1",
    });
    expect(recovery).toMatchObject({ iid: first.iid, status: "resolved" });
  });
});
