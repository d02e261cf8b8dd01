import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, until, waitForPort } from "@tocsin/testing";
import { afterEach, describe, expect, inject, it } from "vitest";
import { mailSettled } from "./alert-email-system.js";
import { api } from "./api.js";
import { bootAuth, bootGateway, bootSettings } from "./harness.js";
import { addMember, seedProject, seedUser } from "./seed.js";
import { startSmtpSink } from "./smtp-sink.js";

/**
 * No alert e-mail is lost or doubled by a crash: alert-service runs as a child process and is
 * killed with SIGKILL after the webhook accepted the alerts and before their mails could be
 * delivered (the SMTP server is down meanwhile), then again while the mails wait for a retry.
 * Once it is back, and the SMTP server too, every mail arrives exactly once.
 */
const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const redisUrl = inject("redisUrl");
const mongoUrl = inject("mongoUrl");
const ADMIN = "admin-token-mail-durability-0123456789";
const SECRET = "mail-durability-secret-key-0123456789";

const variants: Array<[string, Record<string, string>, boolean]> = [
  ["the durable SQLite queue", { REDIS_URL: "" }, true],
  ["BullMQ", { REDIS_URL: redisUrl ?? "" }, !!redisUrl],
  [
    "MongoDB (FerretDB) and BullMQ",
    { MONGO_URL: mongoUrl ?? "", MONGO_DB: `tocsin_mail_durability_${process.pid}`, REDIS_URL: redisUrl ?? "" },
    !!mongoUrl && !!redisUrl,
  ],
];

describe("alert e-mails survive SIGKILL of alert-service", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  for (const [name, env, available] of variants) {
    it.skipIf(!available)(
      `with ${name}: every mail arrives once`,
      async () => {
        const dir = mkdtempSync(join(tmpdir(), "tocsin-mail-durability-"));
        cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
        const sink = await startSmtpSink();
        cleanups.push(() => sink.stop());
        const base = { LOG_LEVEL: "silent", ADMIN_TOKEN: ADMIN, SECRET_KEY: SECRET };
        const auth = await bootAuth({ ...base, AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dir, "auth") });
        cleanups.push(() => auth.stop());
        const settings = await bootSettings({
          ...base,
          AUTH_SERVICE_ADDR: auth.address,
          SETTINGS_SERVICE_ADDR: "127.0.0.1:0",
          DATA_DIR: join(dir, "settings"),
        });
        cleanups.push(() => settings.stop());
        const alertPort = await freePort();
        const metricsPort = await freePort();
        const alertEnv = {
          ...process.env,
          ...base,
          LOG_LEVEL: "error",
          ALERT_SERVICE_ADDR: `127.0.0.1:${alertPort}`,
          METRICS_PORT: String(metricsPort),
          AUTH_SERVICE_ADDR: auth.address,
          SETTINGS_SERVICE_ADDR: settings.address,
          DATA_DIR: join(dir, "alert"),
          MONGO_URL: "",
          QUEUE_PREFIX: `tocsin-mail-durability-${process.pid}-${Date.now()}`,
          SMTP_URL: sink.url,
          MAIL_RETRY_INITIAL_MS: "200",
          MAIL_RETRY_MAX_MS: "500",
          MAIL_RETRY_FOR_HOURS: "1",
          ...env,
        };
        let child: ChildProcess | undefined;
        const startAlert = async () => {
          child = spawn(process.execPath, ["--conditions=tocsin-src", "--import", "tsx", "alert-service/src/main.ts"], {
            cwd: repoRoot,
            env: alertEnv,
            stdio: ["ignore", "ignore", "inherit"],
          });
          await waitForPort(alertPort, "127.0.0.1", 30_000);
        };
        const killAlert = async () => {
          const c = child;
          if (!c || c.exitCode !== null) return;
          const exited = new Promise((r) => c.once("exit", r));
          c.kill("SIGKILL");
          await exited;
        };
        cleanups.push(killAlert);
        await startAlert();
        const gateway = await bootGateway({
          ...base,
          PORT: "0",
          AUTH_SERVICE_ADDR: auth.address,
          ALERT_SERVICE_ADDR: `127.0.0.1:${alertPort}`,
          SETTINGS_SERVICE_ADDR: settings.address,
        });
        cleanups.push(() => gateway.stop());

        const owner = await seedUser(gateway.url, ADMIN, { username: "olga" });
        const maint = await seedUser(gateway.url, ADMIN, { username: "mark" });
        const project = await seedProject(gateway.url, owner.token, { path: "pay" });
        await addMember(gateway.url, owner.token, "projects", project.id, maint.user.id, 40);
        const mgmt = `/api/v4/projects/${project.id}/alert_management`;
        const created = await api(gateway.url, owner.token).post(`${mgmt}/http_integrations`, { name: "M", active: true });
        expect((await api(gateway.url, owner.token).put(`${mgmt}/settings`, { send_email: true })).status).toBe(200);
        const path = new URL(created.body.url as string).pathname;
        const post = async (title: string) => {
          const res = await fetch(`${gateway.url}${path}`, {
            method: "POST",
            headers: { authorization: `Bearer ${created.body.token}`, "content-type": "application/json" },
            body: JSON.stringify({ title, fingerprint: title }),
          });
          expect(res.status).toBe(202);
        };

        await sink.stop();
        const titles = Array.from({ length: 8 }, (_, i) => `Crash ${i}`);
        for (const title of titles) await post(title);
        // Killed right after the 202s: some alerts are processed, their mails queued, none sent.
        await killAlert();
        await startAlert();
        // Killed again while the mails wait for their next retry.
        await until(async () => (await api(gateway.url, owner.token).get(`${mgmt}/alerts`)).body?.length === titles.length);
        await killAlert();
        await startAlert();
        await sink.start();

        const count = (email: string, title: string) =>
          sink.to(email).filter((m) => m.subject === `${project.path_with_namespace} | Alert: ${title}`).length;
        const all = [owner.user.email, maint.user.email];
        await until(() => titles.every((t) => all.every((e) => count(e, t) >= 1)), 60_000);
        // No mail job is left waiting, delayed or running (a job of the killed process included):
        // no retry can send any of them again.
        await mailSettled(`http://127.0.0.1:${metricsPort}/metrics`, 60_000);
        for (const t of titles) for (const e of all) expect(count(e, t), `${e} ${t}`).toBe(1);
      },
      180_000,
    );
  }
});
