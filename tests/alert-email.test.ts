import { until } from "@tocsin/testing";
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type MailSystem, startMailSystem } from "./alert-email-system.js";
import { api } from "./api.js";
import { addMember, type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";
import { type SmtpSink, startSmtpSink } from "./smtp-sink.js";

/**
 * Alert e-mails (PRODUCT.md section 9) through the whole system to a real SMTP server: who gets
 * them, how many, what they say, and what happens when the server is down or refuses an address.
 * Runs on both stores and both queues. Time: retries and the storm window are shortened through
 * alert-service's variables; every wait polls a condition.
 */
const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
if (!mongoUrl) console.warn("[alert e-mails] MongoDB-protocol server unavailable: MongoDB runs are SKIPPED");
if (!redisUrl) console.warn("[alert e-mails] Redis unavailable: BullMQ runs are SKIPPED");

/** `stormWindowSeconds`: long enough for 100 alerts to be processed within one window (FerretDB is slower). */
type Combo = {
  store: "sqlite" | "mongo";
  queue: "local" | "bullmq";
  available: boolean;
  stormWindowSeconds: number;
};
const combos: Combo[] = [
  { store: "sqlite", queue: "local", available: true, stormWindowSeconds: 20 },
  { store: "sqlite", queue: "bullmq", available: !!redisUrl, stormWindowSeconds: 20 },
  { store: "mongo", queue: "local", available: !!mongoUrl, stormWindowSeconds: 60 },
  { store: "mongo", queue: "bullmq", available: !!mongoUrl && !!redisUrl, stormWindowSeconds: 60 },
];
const EXTERNAL_URL = "https://tocsin.example.com";

interface Integration {
  url: string;
  token: string;
}

async function integrationFor(sys: MailSystem, token: string, project: SeededProject): Promise<Integration> {
  const base = `/api/v4/projects/${project.id}/alert_management`;
  const created = await api(sys.url, token).post(`${base}/http_integrations`, { name: "Monitor", active: true });
  expect(created.status, created.text).toBe(201);
  const settings = await api(sys.url, token).put(`${base}/settings`, { send_email: true });
  expect(settings.status, settings.text).toBe(200);
  // The URL shown to users starts with EXTERNAL_URL; the test posts to the gateway itself.
  const url = (created.body.url as string).replace(EXTERNAL_URL, sys.url);
  return { url, token: created.body.token as string };
}

async function postAlert(i: Integration, payload: Record<string, unknown>, wait = true): Promise<void> {
  const res = await fetch(i.url, {
    method: "POST",
    headers: { authorization: `Bearer ${i.token}`, "content-type": "application/json", ...(wait ? { prefer: "wait" } : {}) },
    body: JSON.stringify(payload),
  });
  expect([200, 202]).toContain(res.status);
  await res.text();
}

/** A header as written (mailparser turns List-* into objects). */
const header = (m: ParsedMail, name: string) => {
  const line = m.headerLines.find((h) => h.key === name)?.line ?? "";
  return line.slice(line.indexOf(":") + 1).trim();
};

for (const combo of combos) {
  describe.skipIf(!combo.available)(`alert e-mails on ${combo.store} with the ${combo.queue} queue`, () => {
    let sink: SmtpSink;
    let sys: MailSystem;
    let owner: SeededUser;
    const u: Record<string, SeededUser> = {};
    let project: SeededProject;
    let integration: Integration;
    const subjects = (who: string) => sink.to(u[who]?.user.email ?? "").map((m) => m.subject);
    const count = (who: string, subject: string) => subjects(who).filter((s) => s === subject).length;

    beforeAll(async () => {
      sink = await startSmtpSink();
      sys = await startMailSystem({
        SMTP_URL: sink.url,
        EXTERNAL_URL,
        MAIL_FROM: "Tocsin <alerts@tocsin.example.com>",
        MAIL_RETRY_INITIAL_MS: "100",
        MAIL_RETRY_MAX_MS: "500",
        MAIL_RETRY_FOR_HOURS: "1",
        MAIL_STORM_WINDOW_SECONDS: String(combo.stormWindowSeconds),
        ...(combo.store === "mongo" ? { MONGO_URL: mongoUrl as string } : {}),
        ...(combo.queue === "bullmq" ? { REDIS_URL: redisUrl as string } : {}),
      });
      owner = await seedUser(sys.url, sys.adminToken, { username: "owner" });
      u.owner = owner;
      const group = await seedGroup(sys.url, owner.token, { path: "ops" });
      project = await seedProject(sys.url, owner.token, { path: "web", namespaceId: group.id });
      for (const name of ["maint", "dev", "pdis", "gdis", "bounce", "blocked"])
        u[name] = await seedUser(sys.url, sys.adminToken, { username: name });
      const id = (n: string) => u[n]?.user.id as number;
      await addMember(sys.url, owner.token, "groups", group.id, id("maint"), 40);
      await addMember(sys.url, owner.token, "groups", group.id, id("gdis"), 40);
      await addMember(sys.url, owner.token, "projects", project.id, id("dev"), 30);
      await addMember(sys.url, owner.token, "projects", project.id, id("pdis"), 40);
      await addMember(sys.url, owner.token, "projects", project.id, id("bounce"), 40);
      await addMember(sys.url, owner.token, "groups", group.id, id("blocked"), 50);
      const block = await api(sys.url, sys.adminToken).post(`/api/v4/users/${id("blocked")}/block`);
      expect(block.status, block.text).toBe(201);
      const level = async (who: string, path: string) => {
        const res = await api(sys.url, u[who]?.token).put(`/api/v4/${path}/notification_settings?level=disabled`);
        expect(res.status, res.text).toBe(200);
      };
      await level("pdis", `projects/${project.id}`);
      await level("gdis", `groups/${group.id}`);
      sink.reject.add(u.bounce?.user.email as string);
      integration = await integrationFor(sys, owner.token, project);
    }, 120_000);

    afterAll(async () => {
      await sys?.stop();
      await sink?.stop();
    });

    it("a new alert mails each Owner and Maintainer once; Developers, disabled levels and blocked users get none; a 550 drops only its address", async () => {
      await postAlert(integration, {
        title: "Disk full",
        fingerprint: "disk-1",
        severity: "high",
        service: "db",
        monitoring_tool: "Zabbix",
        hosts: ["db-1"],
        description: "Only 1% left",
      });
      const subject = "ops/web | Alert: Disk full";
      await until(() => count("owner", subject) === 1 && count("maint", subject) === 1);
      await until(async () => (await sys.metric("tocsin_mail_dropped_total")) >= 1);
      await sys.mailSettled();
      for (const who of ["dev", "pdis", "gdis", "bounce", "blocked"]) expect(subjects(who), who).toEqual([]);

      const mail = sink.to(owner.user.email)[0] as ParsedMail;
      const link = "https://tocsin.example.com/ops/web/-/alert_management/1/details";
      expect(mail.from?.value).toEqual([{ name: "Tocsin", address: "alerts@tocsin.example.com" }]);
      expect(mail.messageId).toMatch(/^<.+@tocsin\.example\.com>$/);
      expect(mail.messageId).not.toBe(sink.to(u.maint?.user.email as string)[0]?.messageId);
      expect(header(mail, "list-id")).toMatch(/^ops\/web <ops\.web\.\d+\.tocsin>$/);
      expect(header(mail, "x-tocsin-project")).toBe("ops/web");
      expect(header(mail, "x-tocsin-alert-iid")).toBe("1");
      expect(header(mail, "auto-submitted")).toBe("auto-generated");
      for (const part of [mail.text ?? "", String(mail.html)]) {
        for (const field of ["Disk full", "high", "triggered", "db-1", "Zabbix", "Only 1% left", link])
          expect(part).toContain(field);
      }
      expect(mail.html).toContain(`href="${link}"`);
    });

    it("ten repeats send nothing more; the recovery sends one threaded resolved mail each", async () => {
      for (let n = 0; n < 10; n++) await postAlert(integration, { title: "Disk full", fingerprint: "disk-1" });
      await postAlert(integration, { title: "Disk full", fingerprint: "disk-1", end_time: "2026-11-21T10:05:00Z" });
      const resolved = "ops/web | Alert resolved: Disk full";
      await until(() => count("owner", resolved) === 1 && count("maint", resolved) === 1);
      await sys.mailSettled();
      for (const who of ["owner", "maint"]) {
        expect(count(who, "ops/web | Alert: Disk full"), who).toBe(1);
        const mails = sink.to(u[who]?.user.email as string);
        const first = mails.find((m) => m.subject === "ops/web | Alert: Disk full") as ParsedMail;
        const reply = mails.find((m) => m.subject === resolved) as ParsedMail;
        expect(reply.inReplyTo).toBe(first.messageId);
        expect([reply.references].flat()).toContain(first.messageId);
        expect(reply.text).toContain("2026-11-21T10:05:00.000Z");
      }
      for (const who of ["dev", "pdis", "gdis", "blocked"]) expect(subjects(who), who).toEqual([]);
    });

    it("a level changed to disabled, a block and an unblock apply to the very next alert", async () => {
      const res = await api(sys.url, u.maint?.token).put(`/api/v4/projects/${project.id}/notification_settings?level=disabled`);
      expect(res.status).toBe(200);
      await postAlert(integration, { title: "CPU hot", fingerprint: "cpu-1" });
      await until(() => count("owner", "ops/web | Alert: CPU hot") === 1);
      await sys.mailSettled();
      expect(count("maint", "ops/web | Alert: CPU hot")).toBe(0);
      const back = await api(sys.url, u.maint?.token).put(`/api/v4/projects/${project.id}/notification_settings?level=global`);
      expect(back.status).toBe(200);
      // Blocking takes effect on the next alert too, and unblocking brings the mails back.
      const admin = api(sys.url, sys.adminToken);
      expect((await admin.post(`/api/v4/users/${u.maint?.user.id}/block`)).status).toBe(201);
      await postAlert(integration, { title: "Memory low", fingerprint: "mem-1" });
      await until(() => count("owner", "ops/web | Alert: Memory low") === 1);
      await sys.mailSettled();
      expect(count("maint", "ops/web | Alert: Memory low")).toBe(0);
      expect((await admin.post(`/api/v4/users/${u.maint?.user.id}/unblock`)).status).toBe(201);
      await postAlert(integration, { title: "Memory low again", fingerprint: "mem-2" });
      await until(() => count("maint", "ops/web | Alert: Memory low again") === 1);
    });

    it("with the SMTP server down for a while, the mails arrive once it is back, each once", async () => {
      await sink.stop();
      const failedBefore = await sys.metric("tocsin_mail_failed_total");
      await postAlert(integration, { title: "Network down", fingerprint: "net-1" });
      await until(async () => (await sys.metric("tocsin_mail_failed_total")) >= failedBefore + 2);
      expect(await sys.metric("tocsin_mail_queued")).toBeGreaterThan(0);
      await sink.start();
      const subject = "ops/web | Alert: Network down";
      await until(() => count("owner", subject) === 1 && count("maint", subject) === 1);
      // No mail job is left waiting, delayed or running: no retry can send either mail again.
      await sys.mailSettled();
      expect([count("owner", subject), count("maint", subject)]).toEqual([1, 1]);
    });

    it(
      "100 distinct alerts in a minute: 30 mails one by one, then one digest per recipient",
      async () => {
        const storm = await seedProject(sys.url, owner.token, { path: "storm" });
        const i = await integrationFor(sys, owner.token, storm);
        for (let batch = 0; batch < 10; batch++) {
          await Promise.all(
            Array.from({ length: 10 }, (_, k) =>
              postAlert(i, { title: `Storm ${batch * 10 + k}`, fingerprint: `s-${batch * 10 + k}` }, false),
            ),
          );
        }
        const mine = () => sink.to(owner.user.email).filter((m) => m.subject?.startsWith(`${storm.path_with_namespace} |`));
        await until(() => mine().length === 31, (combo.stormWindowSeconds + 90) * 1000);
        await sys.mailSettled();
        const digests = mine().filter((m) => m.subject === `${storm.path_with_namespace} | 70 more alerts`);
        expect(digests).toHaveLength(1);
        expect(mine().filter((m) => m.subject?.includes("| Alert: Storm"))).toHaveLength(30);
        const listed = (digests[0]?.text ?? "").match(/Alert: Storm \d+/g) ?? [];
        expect(listed).toHaveLength(70);
      },
      (combo.stormWindowSeconds + 150) * 1000,
    );
  });
}
