import { until } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MailSystem, startMailSystem } from "./alert-email-system.js";
import { amAlert, amBearer, amWebhook } from "./alertmanager.fixtures.js";
import { api } from "./api.js";
import { type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";
import { type SmtpSink, startSmtpSink } from "./smtp-sink.js";

/**
 * Silences as the gate of processing (PRODUCT.md section 13) through the whole system to a real
 * SMTP server, read like a timeline: a silence for "Database failover" is set for a few seconds;
 * the matching alert is stored and mails nobody while a non-matching one mails; a silenced
 * alert's recovery passes; when the silence ends, the still-triggered alert mails once.
 */
const EXTERNAL_URL = "https://tocsin.example.com";
const SILENCE_SECONDS = 4;

describe("silences hold alert e-mails back until they end (embedded store, processing thread)", () => {
  let sink: SmtpSink;
  let sys: MailSystem;
  let owner: SeededUser;
  let project: SeededProject;
  let integration: { url: string; token: string };
  const mails = (title: string) => sink.to(owner.user.email).filter((m) => m.subject === `ops/db | Alert: ${title}`);
  const resolvedMails = (title: string) =>
    sink.to(owner.user.email).filter((m) => m.subject === `ops/db | Alert resolved: ${title}`);

  const post = async (payload: Record<string, unknown>) => {
    const res = await fetch(integration.url, {
      method: "POST",
      headers: { authorization: `Bearer ${integration.token}`, "content-type": "application/json", prefer: "wait" },
      body: JSON.stringify(payload),
    });
    expect([200, 202]).toContain(res.status);
    await res.text();
  };

  beforeAll(async () => {
    sink = await startSmtpSink();
    sys = await startMailSystem({
      SMTP_URL: sink.url,
      EXTERNAL_URL,
      MAIL_FROM: "Tocsin <alerts@tocsin.example.com>",
      MAIL_RETRY_INITIAL_MS: "100",
      MAIL_RETRY_MAX_MS: "500",
    });
    owner = await seedUser(sys.url, sys.adminToken, { username: "dba" });
    const group = await seedGroup(sys.url, owner.token, { path: "ops" });
    project = await seedProject(sys.url, owner.token, { path: "db", namespaceId: group.id });
    const base = `/api/v4/projects/${project.id}/alert_management`;
    const created = await api(sys.url, owner.token).post(`${base}/http_integrations`, { name: "Monitor", active: true });
    expect(created.status, created.text).toBe(201);
    expect((await api(sys.url, owner.token).put(`${base}/settings`, { send_email: true })).status).toBe(200);
    integration = { url: (created.body.url as string).replace(EXTERNAL_URL, sys.url), token: created.body.token as string };
  }, 120_000);

  afterAll(async () => {
    await sys?.stop();
    await sink?.stop();
  });

  it("quiet while silenced, loud again when the silence ends; recoveries pass", async () => {
    const am = `/api/v4/projects/${project.id}/alertmanager/api/v2`;
    const endsAt = new Date(Date.now() + SILENCE_SECONDS * 1000).toISOString();
    const silence = await api(sys.url, owner.token).post(`${am}/silences`, {
      matchers: [{ name: "service", value: "postgres", isRegex: false, isEqual: true }],
      endsAt,
      createdBy: "dba",
      comment: "planned failover",
    });
    expect(silence.status, silence.text).toBe(200);

    // t0: the failover's alerts come in while the silence is active.
    await post({ title: "Database failover", service: "postgres", fingerprint: "pg-failover" });
    await post({ title: "Replica lag", service: "postgres", fingerprint: "pg-lag" });
    await post({ title: "Replica lag", service: "postgres", fingerprint: "pg-lag", end_time: new Date().toISOString() });
    // ...and one the silence does not cover.
    await post({ title: "Disk full", service: "web", fingerprint: "disk" });
    await until(() => mails("Disk full").length === 1);
    // The recovery of a silenced alert passes.
    await until(() => resolvedMails("Replica lag").length === 1);

    // Stored, counted, silent, and carrying the silence that held them.
    const silenceId = silence.body.silenceID as string;
    const listed = async () =>
      (await api(sys.url, owner.token).get(`/api/v4/projects/${project.id}/alert_management/alerts`)).body as Array<{
        iid: number;
        title: string;
        status: string;
        silenced_by: string[];
      }>;
    const alerts = await listed();
    expect(alerts.map((a) => [a.title, a.status, a.silenced_by]).sort()).toEqual([
      ["Database failover", "triggered", [silenceId]],
      ["Disk full", "triggered", []],
      ["Replica lag", "resolved", [silenceId]],
    ]);
    const failover = alerts.find((a) => a.title === "Database failover");
    const details = await api(sys.url, owner.token).get(
      `/api/v4/projects/${project.id}/alert_management/alerts/${failover?.iid}`,
    );
    expect(details.body.silenced_by).toEqual([silenceId]);
    expect(mails("Database failover")).toEqual([]);
    expect(mails("Replica lag")).toEqual([]);

    // t0 + 4 s: the silence ends with the failover alert still triggered: it mails now, once.
    await until(() => mails("Database failover").length === 1);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(endsAt));
    expect((await listed()).find((a) => a.title === "Database failover")?.silenced_by).toEqual([]);
    // No mail job left: the failover's was not sent twice.
    await sys.mailSettled();
    expect(mails("Database failover")).toHaveLength(1);
    expect(mails("Replica lag")).toEqual([]);
  });

  it("a replacement that still covers keeps a held alert quiet; expiring it early lets the alert notify then", async () => {
    const client = api(sys.url, owner.token);
    const am = `/api/v4/projects/${project.id}/alertmanager/api/v2`;
    const silencedBy = async () =>
      (
        (await client.get(`/api/v4/projects/${project.id}/alert_management/alerts?per_page=100`)).body as Array<{
          title: string;
          silenced_by: string[];
        }>
      ).find((a) => a.title === "Cache down")?.silenced_by;
    const first = await client.post(`${am}/silences`, {
      matchers: [{ name: "service", value: "redis", isRegex: false, isEqual: true }],
      endsAt: new Date(Date.now() + 3600_000).toISOString(),
      createdBy: "dba",
      comment: "cache migration",
    });
    const firstId = first.body.silenceID as string;
    await post({ title: "Cache down", service: "redis", fingerprint: "cache" });
    await until(async () => (await silencedBy())?.[0] === firstId);

    // Other matchers: Alertmanager's rule makes a new silence and expires the first one.
    const got = (await client.get(`${am}/silence/${firstId}`)).body;
    const replaced = await client.post(`${am}/silences`, {
      ...got,
      matchers: [{ name: "service", value: "redis|memcached", isRegex: true, isEqual: true }],
    });
    const secondId = replaced.body.silenceID as string;
    expect(secondId).not.toBe(firstId);
    // The expired first silence sends its held alert to look again: the replacement holds it.
    await until(async () => (await silencedBy())?.[0] === secondId);
    await post({ title: "Sentinel", service: "web", fingerprint: "sentinel" });
    await until(() => mails("Sentinel").length === 1);
    await sys.mailSettled();
    expect(mails("Cache down")).toEqual([]);

    // Done early: expiring the replacement lets the still-triggered alert notify now, not in an hour.
    expect((await client.del(`${am}/silence/${secondId}`)).status).toBe(200);
    await until(() => mails("Cache down").length === 1);
    await until(async () => (await silencedBy())?.length === 0);
  });

  it("Alertmanager's batch through the Prometheus integration: a label-matched alert is held, the other mails", async () => {
    const client = api(sys.url, owner.token);
    const mgmt = `/api/v4/projects/${project.id}/alert_management`;
    const prom = (await client.put(`${mgmt}/prometheus_integration`, { active: true })).body as { url: string; token: string };
    const silence = await client.post(`/api/v4/projects/${project.id}/alertmanager/api/v2/silences`, {
      matchers: [{ name: "team", value: "storage", isRegex: false, isEqual: true }],
      endsAt: new Date(Date.now() + 3600_000).toISOString(),
      createdBy: "dba",
      comment: "disk shelf swap",
    });
    const batch = amWebhook([
      amAlert({ alertname: "ShelfDegraded", team: "storage", instance: "nas-1:9100" }),
      amAlert({ alertname: "QueueBacklog", team: "web", instance: "web-1:9100" }),
    ]);
    const res = await fetch(prom.url.replace(EXTERNAL_URL, sys.url), {
      method: "POST",
      headers: { ...amBearer(prom.token), "content-type": "application/json", prefer: "wait" },
      body: JSON.stringify(batch),
    });
    expect([200, 202]).toContain(res.status);
    await res.text();
    await until(() => mails("QueueBacklog").length === 1);
    const alerts = (await client.get(`${mgmt}/alerts?per_page=100`)).body as Array<{ title: string; silenced_by: string[] }>;
    expect(alerts.find((a) => a.title === "ShelfDegraded")?.silenced_by).toEqual([silence.body.silenceID]);
    expect(alerts.find((a) => a.title === "QueueBacklog")?.silenced_by).toEqual([]);
    await sys.mailSettled();
    expect(mails("ShelfDegraded")).toEqual([]);
  });
});
