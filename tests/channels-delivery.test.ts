import { join } from "node:path";
import { until } from "@tocsin/testing";
import Database from "better-sqlite3";
import { MongoClient } from "mongodb";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { type Receiver, startReceiver } from "./channel-receiver.js";
import { type RunningSystem, startSystem } from "./harness.js";
import { type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";

/**
 * Chat and webhook deliveries (PRODUCT.md section 12) through the whole system to real receivers
 * started here: payloads, signatures, retries, 410, resend, order. Retries and pacing are
 * shortened through alert-service's variables; every wait polls a condition.
 */
const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
if (!mongoUrl || !redisUrl) console.warn("[channels] MongoDB or Redis unavailable: the MongoDB + BullMQ run is SKIPPED");

const EXTERNAL_URL = "https://tocsin.example.com";
const combos: Array<{ name: string; env: Record<string, string>; available: boolean }> = [
  { name: "SQLite and the SQLite queue (processing thread)", env: {}, available: true },
  {
    name: "MongoDB and BullMQ",
    env: { MONGO_URL: mongoUrl as string, REDIS_URL: redisUrl as string },
    available: !!mongoUrl && !!redisUrl,
  },
];

for (const combo of combos) {
  describe.skipIf(!combo.available)(`channel deliveries on ${combo.name}`, () => {
    let sys: RunningSystem;
    let rx: Receiver;
    let owner: SeededUser;
    let project: SeededProject;
    let notify: { url: string; token: string };
    const base = () => `/api/v4/projects/${project.id}`;
    const as = () => api(sys.url, owner.token);
    let fingerprint = 0;

    async function postAlert(payload: Record<string, unknown>): Promise<void> {
      const res = await fetch(notify.url, {
        method: "POST",
        headers: { authorization: `Bearer ${notify.token}`, "content-type": "application/json", prefer: "wait" },
        body: JSON.stringify({ fingerprint: `fp-${++fingerprint}`, ...payload }),
      });
      expect([200, 202]).toContain(res.status);
      await res.text();
    }
    async function hook(path: string, fields: Record<string, unknown> = {}) {
      const res = await as().post(`${base()}/hooks`, { url: `${rx.url}${path}`, ...fields });
      expect(res.status, res.text).toBe(201);
      return res.body as { id: number; signing_secret: string };
    }
    type Logged = { id: number; status: string; attempts: number; response_status: number | null; error: string | null };
    // The alert database's name in the MongoDB run, to read what is stored at rest.
    const alertDb = `tocsin_alert_channels_${process.pid}_${Date.now().toString(36)}`;
    async function storedRow(hookId: number): Promise<string> {
      if (!combo.env.MONGO_URL) {
        const db = new Database(join(sys.alertDataDir, "alert.db"), { readonly: true });
        try {
          return JSON.stringify(db.prepare("SELECT * FROM channel_destinations WHERE id = ?").get(hookId));
        } finally {
          db.close();
        }
      }
      const client = await MongoClient.connect(combo.env.MONGO_URL);
      try {
        return JSON.stringify(
          await client
            .db(alertDb)
            .collection("channel_destinations")
            .findOne({ _id: hookId as never }),
        );
      } finally {
        await client.close();
      }
    }
    const events = async (hookId: number) => (await as().get(`${base()}/hooks/${hookId}/events`)).body as Logged[];

    beforeAll(async () => {
      rx = await startReceiver();
      sys = await startSystem({
        env: {
          EXTERNAL_URL,
          OUTBOUND_ALLOW_LOCAL_NETWORK: "true",
          CHANNEL_RETRY_INITIAL_MS: "50",
          CHANNEL_RETRY_MAX_MS: "200",
          CHANNEL_MIN_INTERVAL_MS: "0",
          CHANNEL_TIMEOUT_MS: "300",
          ...combo.env,
        },
        ...(combo.env.MONGO_URL ? { alertEnv: { MONGO_DB: alertDb } } : {}),
      });
      owner = await seedUser(sys.url, sys.adminToken, { username: "owner" });
      const group = await seedGroup(sys.url, owner.token, { path: "ops" });
      project = await seedProject(sys.url, owner.token, { path: "web", namespaceId: group.id });
      const created = await as().post(`${base()}/alert_management/http_integrations`, { name: "Monitor", active: true });
      expect(created.status, created.text).toBe(201);
      notify = { url: (created.body.url as string).replace(EXTERNAL_URL, sys.url), token: created.body.token };
      const settings = await as().put(`${base()}/alert_management/settings`, { create_incident: true });
      expect(settings.status, settings.text).toBe(200);
    }, 120_000);
    afterAll(async () => {
      await sys?.stop();
      await rx?.stop();
    });

    it("a hook gets GitLab's body for each event, in order, signed with Standard Webhooks", async () => {
      const h = await hook("/hook-main", { token: "hook-token", incident_events: true });
      await postAlert({ title: "Disk full", severity: "high", service: "db" });
      await until(() => rx.at("/hook-main").length >= 2);
      const [first] = rx.at("/hook-main");
      const alertEvent = rx.at("/hook-main").find((r) => r.json.object_kind === "alert");
      expect(alertEvent?.json).toMatchObject({
        object_kind: "alert",
        event_type: "alert.triggered",
        project: { id: project.id, path_with_namespace: "ops/web", web_url: `${EXTERNAL_URL}/ops/web` },
        object_attributes: {
          iid: 1,
          title: "Disk full",
          severity: "high",
          status: "triggered",
          service: "db",
          url: `${EXTERNAL_URL}/ops/web/-/alert_management/1/details`,
        },
      });
      const incident = rx.at("/hook-main").find((r) => r.json.object_kind === "incident");
      expect(incident?.json).toMatchObject({
        event_type: "incident.opened",
        object_attributes: { status: "open", alert_iid: 1 },
      });
      expect(incident?.headers["x-gitlab-event"]).toBe("Incident Hook");
      const headers = first?.headers ?? {};
      expect(alertEvent?.headers["x-gitlab-event"]).toBe("Alert Hook");
      expect(headers["x-gitlab-token"]).toBe("hook-token");
      expect(headers["idempotency-key"]).toBe(headers["webhook-id"]);
      expect(headers["webhook-signature"]).toMatch(/^v1,/);
      // The receiver's side: the spec's own library verifies it with the secret shown at creation.
      const wh = new Webhook(h.signing_secret);
      for (const r of rx.at("/hook-main")) expect(() => wh.verify(r.text, r.headers as Record<string, string>)).not.toThrow();
      expect(() =>
        new Webhook(`whsec_${Buffer.from("x".repeat(32)).toString("base64")}`).verify(
          first?.text ?? "",
          headers as Record<string, string>,
        ),
      ).toThrow();
      // At rest the token and the signing secret are sealed with SECRET_KEY (docs/channels.md).
      const row = await storedRow(h.id);
      expect(row).toContain("sealed:v1:");
      expect(row).not.toContain("hook-token");
      expect(row).not.toContain(h.signing_secret);

      const ack = await as().put(`${base()}/alert_management/alerts/1`, { status: "acknowledged" });
      expect(ack.status, ack.text).toBe(200);
      const resolved = await as().put(`${base()}/alert_management/alerts/1`, { status: "resolved" });
      expect(resolved.status, resolved.text).toBe(200);
      await until(() => rx.at("/hook-main").some((r) => r.json.event_type === "alert.resolved"));
      const alertTypes = rx
        .at("/hook-main")
        .filter((r) => r.json.object_kind === "alert")
        .map((r) => r.json.event_type);
      expect(alertTypes).toEqual(["alert.triggered", "alert.acknowledged", "alert.resolved"]);
      await until(async () => (await events(h.id)).filter((e) => e.status === "delivered").length >= 4);
      const log = await events(h.id);
      expect(log[0]).toMatchObject({ status: "delivered", attempts: 1, response_status: 200, error: null });
      expect(Object.keys(log[0] ?? {}).sort()).toEqual(
        ["attempts", "created_at", "duration_ms", "error", "event_type", "id", "response_status", "status"].sort(),
      );
      await as().del(`${base()}/hooks/${h.id}`);
    });

    it("Slack, Mattermost and Microsoft Teams get their own message shapes with the alert's facts and link", async () => {
      const put = async (name: string, fields: Record<string, unknown>) => {
        const res = await as().put(`${base()}/integrations/${name}`, { webhook: `${rx.url}/chat-${name}`, ...fields });
        expect(res.status, res.text).toBe(200);
      };
      await put("slack", { username: "tocsin", alert_channel: "#alerts" });
      await put("mattermost", { channel: "town-square" });
      await put("microsoft-teams", {});
      await postAlert({ title: "API latency", severity: "critical", service: "api" });
      await until(() => ["slack", "mattermost", "microsoft-teams"].every((n) => rx.at(`/chat-${n}`).length >= 1));
      const link = `${EXTERNAL_URL}/ops/web/-/alert_management/2/details`;
      const slack = rx.at("/chat-slack")[0]?.json;
      expect(slack).toMatchObject({ username: "tocsin", channel: "#alerts" });
      expect(slack.text).toContain("Alert triggered in ops/web: API latency");
      expect(JSON.stringify(slack.blocks)).toContain(`<${link}|API latency>`);
      expect(JSON.stringify(slack.blocks)).toContain("critical");
      const mm = rx.at("/chat-mattermost")[0]?.json;
      expect(mm).toMatchObject({ channel: "town-square", text: "Alert triggered in ops/web" });
      expect(mm.attachments[0]).toMatchObject({ title: "API latency", title_link: link, color: "#C95823" });
      expect(mm.attachments[0].fields).toEqual(expect.arrayContaining([{ title: "Severity", value: "critical", short: true }]));
      const teams = rx.at("/chat-microsoft-teams")[0]?.json;
      const card = teams.attachments[0];
      expect(card.contentType).toBe("application/vnd.microsoft.card.adaptive");
      expect(card.content).toMatchObject({ type: "AdaptiveCard", version: "1.4" });
      expect(card.content.actions).toEqual([{ type: "Action.OpenUrl", title: "Open alert", url: link }]);
      // Test settings: one sample message at once, the receiver's status answered.
      rx.script("/chat-slack", { status: 500 });
      const failed = await as().post(`${base()}/integrations/slack/test`);
      expect(failed.body).toMatchObject({ delivered: false, response_status: 500 });
      const ok = await as().post(`${base()}/integrations/slack/test`);
      expect(ok.body).toEqual({ delivered: true, response_status: 200, error: null });
      expect(rx.at("/chat-slack").at(-1)?.json.text).toContain("Test message");
      const log = (await as().get(`${base()}/integrations/slack/events`)).body;
      expect(log[0]).toMatchObject({ event_type: "alert.triggered", status: "delivered" });
      for (const n of ["slack", "mattermost", "microsoft-teams"]) await as().del(`${base()}/integrations/${n}`);
    });

    it("retries 500, 429 (after its Retry-After) and timeouts; a 400 fails at once; resend sends the event again", async () => {
      const h = await hook("/flaky");
      rx.script("/flaky", { status: 500 }, { status: 429, headers: { "retry-after": "1" } }, "hang");
      await postAlert({ title: "Flaky" });
      await until(async () => (await events(h.id))[0]?.status === "delivered");
      const arrivals = rx.at("/flaky");
      expect(arrivals.length).toBe(4);
      expect(new Set(arrivals.map((r) => r.headers["idempotency-key"])).size).toBe(1);
      // Retry-After: 1 was honoured (a lower bound only).
      expect((arrivals[2]?.at ?? 0) - (arrivals[1]?.at ?? 0)).toBeGreaterThanOrEqual(1000);
      expect((await events(h.id))[0]).toMatchObject({ attempts: 4, response_status: 200 });

      rx.script("/flaky", { status: 400 });
      await postAlert({ title: "Refused" });
      await until(async () => (await events(h.id))[0]?.status === "failed");
      expect((await events(h.id))[0]).toMatchObject({ attempts: 1, response_status: 400, error: "HTTP 400" });
      // The lane of a destination is ordered: once a later event arrived, the 400 was not retried.
      await postAlert({ title: "After" });
      await until(() => rx.at("/flaky").some((r) => r.json.object_attributes.title === "After"));
      expect(rx.at("/flaky").filter((r) => r.json.object_attributes.title === "Refused").length).toBe(1);

      const refused = (await events(h.id)).find((e) => e.status === "failed");
      const resent = await as().post(`${base()}/hooks/${h.id}/events/${refused?.id}/resend`);
      expect(resent.status, resent.text).toBe(201);
      await until(() => rx.at("/flaky").filter((r) => r.json.object_attributes.title === "Refused").length === 2);
      const [a, b] = rx.at("/flaky").filter((r) => r.json.object_attributes.title === "Refused");
      expect(b?.headers["idempotency-key"]).toBe(a?.headers["idempotency-key"]);
      await until(async () => (await events(h.id)).find((e) => e.id === resent.body.id)?.status === "delivered");
      await as().del(`${base()}/hooks/${h.id}`);
    });

    it("a 410 disables the hook until its URL changes; a redirect fails without being followed", async () => {
      const h = await hook("/gone");
      rx.script("/gone", { status: 410 });
      await postAlert({ title: "Gone" });
      await until(async () => (await as().get(`${base()}/hooks/${h.id}`)).body.alert_status === "disabled");
      await postAlert({ title: "Not sent" });
      const moved = await as().put(`${base()}/hooks/${h.id}`, { url: `${rx.url}/gone-again` });
      expect(moved.body.alert_status).toBe("executable");
      await postAlert({ title: "Sent again" });
      await until(() => rx.at("/gone-again").length === 1);
      expect(rx.at("/gone").length).toBe(1);
      expect(rx.at("/gone-again")[0]?.json.object_attributes.title).toBe("Sent again");

      rx.script("/gone-again", { status: 302, headers: { location: `${rx.url}/redirected` } });
      await postAlert({ title: "Redirected" });
      await until(async () => (await events(h.id))[0]?.status === "failed");
      expect((await events(h.id))[0]).toMatchObject({ attempts: 1, response_status: 302, error: "redirect (302) not followed" });
      expect(rx.at("/redirected")).toEqual([]);
      await as().del(`${base()}/hooks/${h.id}`);
    });

    it("a rotated signing secret keeps signing beside the new one for its grace, and stops at once without one", async () => {
      const h = await hook("/hook-rotate");
      const rotate = async (grace_period_seconds: number) => {
        const res = await as().post(`${base()}/hooks/${h.id}/signing_secret`, { grace_period_seconds });
        expect(res.status, res.text).toBe(201);
        return res.body as { signing_secret: string; previous_signing_secret_expires_at: string | null };
      };
      const verifies = (secret: string, r: { text: string; headers: object } | undefined) => {
        try {
          new Webhook(secret).verify(r?.text ?? "", (r?.headers ?? {}) as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      };
      const overlapping = await rotate(3600);
      expect(Date.parse(overlapping.previous_signing_secret_expires_at ?? "")).toBeGreaterThan(Date.now() + 3_500_000);
      await postAlert({ title: "Rotating" });
      await until(() => rx.at("/hook-rotate").length >= 1);
      const during = rx.at("/hook-rotate")[0];
      expect(String(during?.headers["webhook-signature"]).split(" ")).toHaveLength(2);
      // Receivers holding either secret accept it: the one shown at creation and the new one.
      expect(verifies(h.signing_secret, during)).toBe(true);
      expect(verifies(overlapping.signing_secret, during)).toBe(true);

      const immediate = await rotate(0);
      expect(immediate.previous_signing_secret_expires_at).toBeNull();
      await postAlert({ title: "Rotated" });
      await until(() => rx.at("/hook-rotate").length >= 2);
      const after = rx.at("/hook-rotate")[1];
      expect(String(after?.headers["webhook-signature"]).split(" ")).toHaveLength(1);
      expect(verifies(immediate.signing_secret, after)).toBe(true);
      expect(verifies(overlapping.signing_secret, after)).toBe(false);
      expect(verifies(h.signing_secret, after)).toBe(false);
      await as().del(`${base()}/hooks/${h.id}`);
    });
  });
}
