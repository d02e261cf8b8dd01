import { createHmac } from "node:crypto";
import { until } from "@tocsin/testing";
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { type OncallWorld, startOncallWorld } from "./oncall-system.js";
import { type SmtpSink, startSmtpSink } from "./smtp-sink.js";

/**
 * Paging (PRODUCT.md section 11) through the whole system to a real SMTP server: escalation
 * rules as durable delayed jobs, the page e-mails, the alert's activity and `escalation`, and the
 * acknowledge link. Both storage modes and both queues. Policy seconds are 20 ms long
 * (PAGING_SECOND_MS), so a 60 s rule is due 1.2 s after the trigger; every wait polls a condition.
 */
const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
if (!mongoUrl) console.warn("[paging] MongoDB-protocol server unavailable: MongoDB runs are SKIPPED");
if (!redisUrl) console.warn("[paging] Redis unavailable: BullMQ runs are SKIPPED");

const combos = [
  { store: "sqlite", queue: "local", available: true },
  { store: "sqlite", queue: "bullmq", available: !!redisUrl },
  { store: "mongo", queue: "local", available: !!mongoUrl },
  { store: "mongo", queue: "bullmq", available: !!mongoUrl && !!redisUrl },
] as const;
const EXTERNAL_URL = "https://tocsin.example.com";
const SECRET_KEY = "test-secret-key-0123456789abcdef";

/** A token as alert-service signs it (tests forge expired ones and ones for other users). */
function forgeToken(alertId: number, userId: number, expiresAtSeconds: number): string {
  const payload = Buffer.from(JSON.stringify({ a: alertId, u: userId, e: expiresAtSeconds })).toString("base64url");
  const mac = createHmac("sha256", SECRET_KEY).update(`tocsin.page-ack.v1:${payload}`).digest("base64url");
  return `${payload}.${mac}`;
}

interface Escalation {
  policy: string;
  next_page_at: string | null;
  pages: Array<{ users: string[]; rule: number; round: number; at: string }>;
}

for (const combo of combos) {
  describe.skipIf(!combo.available)(`paging on ${combo.store} with the ${combo.queue} queue`, () => {
    let sink: SmtpSink;
    let w: OncallWorld;
    let hook: { url: string; token: string };
    const alerts = () => `/api/v4/projects/${w.project}/alert_management/alerts`;
    const olga = () => w.as(w.users.olga);

    /** Page e-mails to `who` about alert `iid`. */
    const pagesTo = (who: keyof OncallWorld["users"], iid: number): ParsedMail[] =>
      sink
        .to(w.users[who].user.email)
        .filter((m) => m.subject?.startsWith("ops/pager | Paging:") && m.headers.get("x-tocsin-alert-iid") === String(iid));
    const details = async (iid: number) => {
      const res = await olga().get(`${alerts()}/${iid}`);
      expect(res.status, res.text).toBe(200);
      return res.body as { status: string; activity: Array<{ note: string }>; escalation: Escalation | null };
    };
    const notes = async (iid: number) => (await details(iid)).activity.map((a) => a.note);
    const setPolicy = async (rules: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) => {
      const base = `${w.base()}/escalation_policies`;
      const existing = (await olga().get(base)).body as Array<{ id: number }>;
      const body = { name: "Escalate", rules, repeat_every_seconds: null, max_repeats: 0, ...extra };
      const res = existing[0] ? await olga().put(`${base}/${existing[0].id}`, body) : await olga().post(base, body);
      expect([200, 201], res.text).toContain(res.status);
    };
    const schedule = (iid: number, elapsed = 0) => ({
      status: "acknowledged",
      elapsed_time_seconds: elapsed,
      oncall_schedule_iid: iid,
    });
    const user = (username: string, elapsed: number, status = "acknowledged") => ({
      status,
      elapsed_time_seconds: elapsed,
      username,
    });
    /** Posts a new alert and answers its iid once it was processed. */
    const trigger = async (title: string): Promise<number> => {
      const res = await fetch(hook.url, {
        method: "POST",
        headers: { authorization: `Bearer ${hook.token}`, "content-type": "application/json", prefer: "wait" },
        body: JSON.stringify({ title, fingerprint: title, severity: "high", service: "db", hosts: ["db-1"] }),
      });
      expect(res.status).toBe(200);
      await res.text();
      const list = await olga().get(`${alerts()}?search=${encodeURIComponent(title)}`);
      return (list.body as Array<{ iid: number }>)[0]?.iid as number;
    };
    const setStatus = async (iid: number, status: string) => {
      const res = await olga().put(`${alerts()}/${iid}`, { status });
      expect(res.status, res.text).toBe(200);
    };

    beforeAll(async () => {
      sink = await startSmtpSink();
      w = await startOncallWorld({
        SMTP_URL: sink.url,
        EXTERNAL_URL,
        PAGING_SECOND_MS: "20",
        MAIL_RETRY_INITIAL_MS: "100",
        MAIL_RETRY_MAX_MS: "500",
        ...(combo.store === "mongo" ? { MONGO_URL: mongoUrl as string } : {}),
        ...(combo.queue === "bullmq" ? { REDIS_URL: redisUrl as string } : {}),
      });
      const as = olga();
      expect((await as.post(`${w.base()}/oncall_schedules`, { name: "Primary", timezone: "UTC" })).status).toBe(201);
      expect((await as.post(`${w.base()}/oncall_schedules`, { name: "Empty", timezone: "UTC" })).status).toBe(201);
      const rotation = await as.post(`${w.base()}/oncall_schedules/1/rotations`, {
        name: "Always cat",
        starts_at: "2020-01-06T00:00",
        rotation_length: { length: 1, unit: "weeks" },
        participants: ["cat"],
      });
      expect(rotation.status, rotation.text).toBe(201);
      const created = await as.post(`/api/v4/projects/${w.project}/alert_management/http_integrations`, {
        name: "Monitor",
        active: true,
      });
      expect(created.status, created.text).toBe(201);
      hook = { url: (created.body.url as string).replace(EXTERNAL_URL, w.sys.url), token: created.body.token as string };
    }, 120_000);

    afterAll(async () => {
      await w?.sys.stop();
      await sink?.stop();
    });

    it("rule 0 s pages the schedule's on-call user at once, a later rule pages its user later; the alert shows both", async () => {
      await setPolicy([schedule(1), user("bob", 60)]);
      const iid = await trigger("Disk full A");
      const [page] = await until(() => pagesTo("cat", iid).length === 1 && pagesTo("cat", iid));
      expect(page?.subject).toBe("ops/pager | Paging: Disk full A");
      expect(page?.text).toContain("Severity: high");
      expect(page?.text).toContain("escalation policy Escalate");
      expect(page?.text).toMatch(/Acknowledge the alert: https:\/\/tocsin\.example\.com\/-\/alerts\/acknowledge\?token=\S+/);
      await until(() => pagesTo("bob", iid).length === 1);
      // Bob's page came after cat's (rule 1 is due 60 policy seconds after the trigger).
      expect(sink.messages.indexOf(pagesTo("cat", iid)[0] as ParsedMail)).toBeLessThan(
        sink.messages.indexOf(pagesTo("bob", iid)[0] as ParsedMail),
      );
      const d = await details(iid);
      expect(d.activity.map((a) => a.note)).toEqual(
        expect.arrayContaining(["paged @cat via escalation policy Escalate", "paged @bob via escalation policy Escalate"]),
      );
      expect(d.escalation).toEqual({
        policy: "Escalate",
        next_page_at: null,
        pages: [
          { users: ["cat"], rule: 0, round: 0, at: expect.any(String) },
          { users: ["bob"], rule: 1, round: 0, at: expect.any(String) },
        ],
      });
      // Nobody else was paged: mia (Maintainer) is in no rule.
      expect(pagesTo("mia", iid)).toEqual([]);
    });

    it("acknowledging stops a later rule, triggering again restarts the policy, resolving cancels it", async () => {
      await setPolicy([schedule(1), user("bob", 200)]);
      const iid = await trigger("Disk full B");
      await until(() => pagesTo("cat", iid).length === 1);
      expect((await details(iid)).escalation?.next_page_at).toEqual(expect.any(String));
      await setStatus(iid, "acknowledged");
      expect((await details(iid)).escalation?.next_page_at).toBeNull();
      await until(async () =>
        (await notes(iid)).includes("did not page @bob via escalation policy Escalate: the alert is acknowledged"),
      );
      expect(pagesTo("bob", iid)).toEqual([]);
      await setStatus(iid, "triggered");
      await until(() => pagesTo("cat", iid).length === 2);
      await setStatus(iid, "resolved");
      await until(async () =>
        (await notes(iid)).includes("did not page @bob via escalation policy Escalate: the alert is resolved"),
      );
      expect(pagesTo("bob", iid)).toEqual([]);
      expect(pagesTo("cat", iid)).toHaveLength(2);
      const d = await details(iid);
      expect(d.activity.filter((a) => a.note === "paged @cat via escalation policy Escalate")).toHaveLength(2);
      // The escalation shows the latest trigger's pages.
      expect(d.escalation).toEqual({
        policy: "Escalate",
        next_page_at: null,
        pages: [expect.objectContaining({ users: ["cat"] })],
      });
    });

    it("repeats every repeat_every_seconds while triggered and stops after max_repeats", async () => {
      await setPolicy([schedule(1)], { repeat_every_seconds: 60, max_repeats: 2 });
      const iid = await trigger("Disk full C");
      const escalation = await until(async () => {
        const e = (await details(iid)).escalation;
        return e?.pages.length === 3 && e.next_page_at === null && e;
      });
      expect(escalation.pages.map((p) => p.round)).toEqual([0, 1, 2]);
      await until(() => pagesTo("cat", iid).length === 3);
    });

    it("a rule whose schedule has nobody on call pages nobody and says so", async () => {
      await setPolicy([schedule(2)]);
      const iid = await trigger("Disk full D");
      await until(async () =>
        (await notes(iid)).includes("paged nobody via escalation policy Escalate: nobody is on call in schedule Empty"),
      );
      expect((await details(iid)).escalation?.pages).toEqual([{ users: [], rule: 0, round: 0, at: expect.any(String) }]);
    });

    it("a page goes to the user's notification e-mail when they set one, else to their primary e-mail", async () => {
      const address = `${combo.store}.${combo.queue}.pager@example.com`;
      const added = await api(w.sys.url, w.sys.adminToken).post(`/api/v4/users/${w.users.bob.user.id}/emails`, {
        email: address,
        skip_confirmation: true,
      });
      expect(added.status, added.text).toBe(201);
      const setEmail = (email: string) =>
        w.as(w.users.bob).put(`/api/v4/notification_settings?notification_email=${encodeURIComponent(email)}`);
      expect((await setEmail(address)).status).toBe(200);
      try {
        await setPolicy([user("bob", 0), schedule(1)]);
        const iid = await trigger("Disk full N");
        const isPage = (m: ParsedMail) =>
          m.subject === "ops/pager | Paging: Disk full N" && m.headers.get("x-tocsin-alert-iid") === String(iid);
        // cat set none: the primary e-mail; bob's page goes to the address he chose, not his primary.
        await until(() => sink.to(address).filter(isPage).length === 1 && pagesTo("cat", iid).length === 1);
        expect(pagesTo("bob", iid)).toEqual([]);
      } finally {
        expect((await setEmail(w.users.bob.user.email)).status).toBe(200);
      }
    });

    it("the acknowledge link: GET changes nothing, POST acknowledges once, tampered 401, expired and revoked 410", async () => {
      await setPolicy([schedule(1)]);
      const iid = await trigger("Disk full E");
      const [page] = await until(() => pagesTo("cat", iid).length === 1 && pagesTo("cat", iid));
      const link = /https:\/\/tocsin\.example\.com(\/-\/alerts\/acknowledge\?token=(\S+))/.exec(page?.text ?? "");
      const [path, token] = [link?.[1] as string, link?.[2] as string];
      const anonymous = w.as({ token: "" } as never);
      const get = await fetch(`${w.sys.url}${path}`, { headers: { accept: "text/html" } });
      const html = await get.text();
      expect(get.status).toBe(200);
      expect(get.headers.get("content-security-policy")).toContain("default-src 'self'");
      expect(html).toContain('<form method="post" action="/-/alerts/acknowledge">');
      expect(html).toContain('<button type="submit">Acknowledge alert</button>');
      expect((await details(iid)).status).toBe("triggered");

      const tampered = `${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`;
      const bad = await anonymous.post("/-/alerts/acknowledge", { token: tampered });
      expect(bad.status).toBe(401);
      expect(bad.body).toEqual({ message: "401 Unauthorized - this acknowledge link is not valid" });
      const alertId = JSON.parse(Buffer.from(token.split(".")[0] as string, "base64url").toString()).a as number;
      const expired = await anonymous.post("/-/alerts/acknowledge", {
        token: forgeToken(alertId, w.users.cat.user.id, Math.floor(Date.now() / 1000) - 1),
      });
      expect(expired.status).toBe(410);
      expect(expired.body.message).toMatch(/expired/);
      const notMember = await anonymous.post("/-/alerts/acknowledge", {
        token: forgeToken(alertId, w.users.nobody.user.id, Math.floor(Date.now() / 1000) + 600),
      });
      expect(notMember.status).toBe(410);
      expect(notMember.body.message).toMatch(/revoked/);
      expect((await details(iid)).status).toBe("triggered");

      const first = await anonymous.post("/-/alerts/acknowledge", { token });
      expect(first.status, first.text).toBe(200);
      expect(first.body).toEqual({
        status: "acknowledged",
        changed: true,
        alert_iid: iid,
        project: "ops/pager",
        username: "cat",
      });
      const again = await anonymous.post("/-/alerts/acknowledge", { token });
      expect(again.body).toMatchObject({ status: "acknowledged", changed: false });
      const form = await fetch(`${w.sys.url}/-/alerts/acknowledge`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token }).toString(),
      });
      expect(form.status).toBe(200);
      expect(await form.text()).toContain(`Alert #${iid} (Disk full E) is acknowledged.`);
      const d = await details(iid);
      expect(d.status).toBe("acknowledged");
      expect(d.activity.filter((a) => a.note === "acknowledged by @cat from a page e-mail")).toHaveLength(1);

      await setStatus(iid, "resolved");
      const resolved = await anonymous.post("/-/alerts/acknowledge", { token });
      expect(resolved.body).toMatchObject({ status: "resolved", changed: false });
      expect((await details(iid)).status).toBe("resolved");
    });
  });
}
