import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, until, waitForPort } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MailSystem, startMailSystem } from "./alert-email-system.js";
import { api } from "./api.js";
import { type SeededProject, type SeededUser, seedGroup, seedProject, seedUser } from "./seed.js";
import { type SmtpSink, startSmtpSink } from "./smtp-sink.js";

/**
 * Issue 24, with the real peer: Prometheus Alertmanager (v0.28.1, installed by
 * scripts/install-alertmanager.sh) routes its alerts to a project's Prometheus integration while a
 * Tocsin silence matches one of them by label. The silenced alert is stored, with `silenced_by`,
 * and mails nobody; the other one mails; the silenced alert's recovery, sent by Alertmanager when
 * it resolves, still resolves it.
 */
const root = fileURLToPath(new URL("..", import.meta.url));
const binary = join(root, ".tmp", "bin", "alertmanager");
const available = existsSync(binary);
if (!available) {
  const why = "alertmanager is missing: run scripts/install-alertmanager.sh";
  if (process.env.CI) throw new Error(why);
  console.warn(`[silences-alertmanager] SKIPPED: ${why}`);
}
const EXTERNAL_URL = "https://tocsin.example.com";

describe.skipIf(!available)("a real Alertmanager posting while a Tocsin silence holds one of its alerts", () => {
  let sink: SmtpSink;
  let sys: MailSystem;
  let owner: SeededUser;
  let project: SeededProject;
  let am: ChildProcess | undefined;
  let amUrl: string;
  let dir: string;
  const mails = (title: string) => sink.to(owner.user.email).filter((m) => m.subject === `ops/db | Alert: ${title}`);

  beforeAll(async () => {
    sink = await startSmtpSink();
    sys = await startMailSystem({ SMTP_URL: sink.url, EXTERNAL_URL, MAIL_RETRY_INITIAL_MS: "100", MAIL_RETRY_MAX_MS: "500" });
    owner = await seedUser(sys.url, sys.adminToken, { username: "dba" });
    const group = await seedGroup(sys.url, owner.token, { path: "ops" });
    project = await seedProject(sys.url, owner.token, { path: "db", namespaceId: group.id });
    const base = `/api/v4/projects/${project.id}/alert_management`;
    const prometheus = await api(sys.url, owner.token).put(`${base}/prometheus_integration`, { active: true });
    expect(prometheus.status, prometheus.text).toBe(200);
    expect((await api(sys.url, owner.token).put(`${base}/settings`, { send_email: true })).status).toBe(200);
    // Alertmanager routes every alert at once to the project's Prometheus URL, with its key.
    dir = mkdtempSync(join(tmpdir(), "tocsin-alertmanager-"));
    const webhook = (prometheus.body.url as string).replace(EXTERNAL_URL, sys.url);
    writeFileSync(
      join(dir, "alertmanager.yml"),
      [
        "route:",
        "  receiver: tocsin",
        "  group_by: ['alertname']",
        "  group_wait: 0s",
        "  group_interval: 1s",
        "  repeat_interval: 1h",
        "receivers:",
        "  - name: tocsin",
        "    webhook_configs:",
        `      - url: ${JSON.stringify(webhook)}`,
        "        send_resolved: true",
        "        http_config:",
        "          authorization:",
        "            type: Bearer",
        `            credentials: ${JSON.stringify(prometheus.body.token)}`,
        "",
      ].join("\n"),
    );
    const port = await freePort();
    am = spawn(
      binary,
      [
        `--config.file=${join(dir, "alertmanager.yml")}`,
        `--storage.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--cluster.listen-address=",
        "--log.level=warn",
      ],
      { stdio: "ignore" },
    );
    amUrl = `http://127.0.0.1:${port}`;
    await waitForPort(port, "127.0.0.1", 30_000);
  }, 120_000);

  afterAll(async () => {
    if (am && am.exitCode === null) {
      const gone = new Promise((r) => am?.once("exit", r));
      am.kill("SIGTERM");
      await gone;
    }
    await sys?.stop();
    await sink?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Alerts as Prometheus sends them to Alertmanager (its own API). */
  const fire = async (alerts: Array<{ alertname: string; title: string; endsAt?: string }>) => {
    const res = await fetch(`${amUrl}/api/v2/alerts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(
        alerts.map((a) => ({
          labels: { alertname: a.alertname, instance: "db-1:9187", severity: "critical" },
          annotations: { title: a.title },
          startsAt: new Date(Date.now() - 60_000).toISOString(),
          ...(a.endsAt ? { endsAt: a.endsAt } : {}),
        })),
      ),
    });
    expect(res.status, await res.text()).toBe(200);
  };

  const alertByTitle = async (title: string) => {
    const res = await api(sys.url, owner.token).get(`/api/v4/projects/${project.id}/alert_management/alerts?per_page=100`);
    return (res.body as Array<{ iid: number; title: string; status: string; silenced_by?: string[] }>).find(
      (a) => a.title === title,
    );
  };

  it("stores the silenced alert with silenced_by and mails nobody about it; the other alert mails; the recovery resolves", async () => {
    const silence = await api(sys.url, owner.token).post(`/api/v4/projects/${project.id}/alertmanager/api/v2/silences`, {
      matchers: [{ name: "alertname", value: "PostgresDown", isRegex: false, isEqual: true }],
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
      createdBy: "dba",
      comment: "planned failover",
    });
    expect(silence.status, silence.text).toBe(200);
    const silenceId = silence.body.silenceID as string;

    await fire([
      { alertname: "PostgresDown", title: "Postgres down" },
      { alertname: "DiskFull", title: "Disk full" },
    ]);
    // Both reach Tocsin through Alertmanager's webhook; the unsilenced one mails.
    const silenced = await until(async () => await alertByTitle("Postgres down"), 60_000, 200);
    await until(() => mails("Disk full").length === 1, 60_000, 100);
    expect(silenced.status).toBe("triggered");
    expect(silenced.silenced_by).toEqual([silenceId]);
    expect((await alertByTitle("Disk full"))?.silenced_by ?? []).toEqual([]);
    await sys.mailSettled();
    expect(mails("Postgres down")).toEqual([]);

    // Alertmanager sends the recovery when the alert resolves: it is never held.
    await fire([{ alertname: "PostgresDown", title: "Postgres down", endsAt: new Date().toISOString() }]);
    await until(async () => (await alertByTitle("Postgres down"))?.status === "resolved", 60_000, 200);
    await sys.mailSettled();
    expect(mails("Postgres down")).toEqual([]);
  }, 120_000);
});
