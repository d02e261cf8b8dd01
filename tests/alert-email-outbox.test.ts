import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "@tocsin/testing";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MailSystem, startMailSystem } from "./alert-email-system.js";
import { api } from "./api.js";
import { addMember, seedProject, seedUser } from "./seed.js";

/**
 * Without SMTP_URL (the embedded default) every alert e-mail is an RFC 5322 file
 * `DATA_DIR/outbox/<message id>.eml` with the content an SMTP server would have received.
 */
describe("alert e-mails without SMTP_URL: the outbox", () => {
  let sys: MailSystem;
  beforeAll(async () => {
    sys = await startMailSystem({ EXTERNAL_URL: "http://tocsin.test:8080" });
  }, 60_000);
  afterAll(async () => sys?.stop());

  it("writes one parseable .eml per recipient, named by its Message-ID, threaded on recovery", async () => {
    const owner = await seedUser(sys.url, sys.adminToken, { username: "eve" });
    const maint = await seedUser(sys.url, sys.adminToken, { username: "max" });
    const dev = await seedUser(sys.url, sys.adminToken, { username: "dan" });
    const project = await seedProject(sys.url, owner.token, { path: "shop" });
    await addMember(sys.url, owner.token, "projects", project.id, maint.user.id, 40);
    await addMember(sys.url, owner.token, "projects", project.id, dev.user.id, 30);
    const base = `/api/v4/projects/${project.id}/alert_management`;
    const created = await api(sys.url, owner.token).post(`${base}/http_integrations`, { name: "M", active: true });
    await api(sys.url, owner.token).put(`${base}/settings`, { send_email: true });
    const url = (created.body.url as string).replace("http://tocsin.test:8080", sys.url);
    const post = (payload: object) =>
      fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${created.body.token}`, "content-type": "application/json", prefer: "wait" },
        body: JSON.stringify(payload),
      }).then((r) => r.text());
    await post({ title: "Checkout slow", fingerprint: "co", severity: "medium", hosts: ["web-1"] });
    await post({ title: "Checkout slow", fingerprint: "co", end_time: "2026-11-21T10:00:00Z" });

    const outbox = join(sys.alertDataDir, "outbox");
    const files = await until(() => {
      try {
        const names = readdirSync(outbox).filter((f) => f.endsWith(".eml"));
        return names.length === 4 && names;
      } catch {
        return false;
      }
    });
    const mails = await Promise.all(files.map((f) => simpleParser(readFileSync(join(outbox, f)))));
    for (const [k, mail] of mails.entries()) expect(`<${files[k]?.replace(/\.eml$/, "")}>`).toBe(mail.messageId);
    const to = (m: (typeof mails)[number]) => [m.to].flat()[0]?.value[0]?.address;
    expect(mails.map((m) => `${to(m)} ${m.subject}`).sort()).toEqual([
      `eve@example.com ${project.path_with_namespace} | Alert resolved: Checkout slow`,
      `eve@example.com ${project.path_with_namespace} | Alert: Checkout slow`,
      `max@example.com ${project.path_with_namespace} | Alert resolved: Checkout slow`,
      `max@example.com ${project.path_with_namespace} | Alert: Checkout slow`,
    ]);
    const first = mails.find((m) => to(m) === "eve@example.com" && m.subject?.includes("| Alert:"));
    const reply = mails.find((m) => to(m) === "eve@example.com" && m.subject?.includes("resolved"));
    expect(reply?.inReplyTo).toBe(first?.messageId);
    expect(first?.from?.value[0]?.address).toBe("tocsin@tocsin.test");
    const link = `http://tocsin.test:8080/${project.path_with_namespace}/-/alert_management/1/details`;
    expect(first?.text).toContain(link);
    expect(first?.text).toContain("web-1");
    expect(String(first?.html)).toContain(`href="${link}"`);
    const headers = first?.headerLines.map((h) => h.key) ?? [];
    for (const h of ["list-id", "x-tocsin-project", "x-tocsin-alert-iid", "auto-submitted"]) expect(headers).toContain(h);

    // A test alert mails like a real one; a dry run mails nothing.
    const testAlert = `${base}/http_integrations/${created.body.id}/test_alert`;
    const dry = await api(sys.url, owner.token).post(`${testAlert}?dry_run=true`, { title: "Dry", fingerprint: "dry" });
    expect(dry.status, dry.text).toBe(200);
    const sent = await api(sys.url, owner.token).post(testAlert, { title: "Test page", fingerprint: "tp" });
    expect(sent.status, sent.text).toBe(200);
    const subjects = await until(async () => {
      const names = readdirSync(outbox).filter((f) => f.endsWith(".eml"));
      if (names.length < 6) return false;
      return Promise.all(names.map(async (f) => (await simpleParser(readFileSync(join(outbox, f)))).subject));
    });
    expect(subjects.filter((x) => x === `${project.path_with_namespace} | Alert: Test page`)).toHaveLength(2);
    expect(subjects.filter((x) => x?.includes("Dry"))).toHaveLength(0);
  });
});
