import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { silentLogger } from "@tocsin/core";
import { openSqlite } from "@tocsin/store";
import { freePort, until, waitForPort } from "@tocsin/testing";
import { MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { bootAuth, bootGateway, bootSettings } from "./harness.js";
import { addMember, seedGroup, seedProject, seedUser } from "./seed.js";
import { type SmtpSink, startSmtpSink } from "./smtp-sink.js";

/**
 * Exactly one page per (alert, rule, round) across a SIGKILL of alert-service between scheduling
 * a rule and its firing: alert-service runs as a child process; an alert triggers a policy whose
 * second rule is due 150 policy seconds (3 s at PAGING_SECOND_MS=20) later; once the escalation
 * is scheduled, alert-service is killed with SIGKILL and started again. The due rule must page
 * once; a control alert triggered after the restart (due later) proves the queues ran past it.
 */
const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
const ADMIN = "admin-token-paging-durability-0123";
const SECRET = "paging-durability-secret-0123456789";
if (!redisUrl) console.warn("[paging durability] Redis unavailable: the BullMQ run is SKIPPED");
if (!mongoUrl) console.warn("[paging durability] MongoDB-protocol server unavailable: the MongoDB run is SKIPPED");

const variants: Array<[string, Record<string, string>, boolean]> = [
  ["SQLite, SQLite queue (processing thread)", {}, true],
  ["SQLite, BullMQ", { REDIS_URL: redisUrl ?? "" }, !!redisUrl],
  ["MongoDB, SQLite queue", { MONGO_URL: mongoUrl ?? "" }, !!mongoUrl],
];

describe.each(variants)("paging across a SIGKILL of alert-service (%s)", (_name, storeEnv, available) => {
  let dir: string;
  let sink: SmtpSink;
  let child: ChildProcess | undefined;
  let alertPort: number;
  let alertEnv: NodeJS.ProcessEnv;
  const stops: Array<() => Promise<void>> = [];
  let url: string;
  let hook: { url: string; token: string };
  let projectId: number;
  let catEmail: string;
  let catId: number;

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
  const owner = () => api(url, ADMIN);
  const alerts = () => `/api/v4/projects/${projectId}/alert_management/alerts`;
  const pages = (iid: number, rule: number) =>
    sink
      .to(catEmail)
      .filter(
        (m) =>
          m.headers.get("x-tocsin-alert-iid") === String(iid) && String(m.headers.get("x-tocsin-page")).endsWith(`:${rule}:0`),
      );
  /** Posts an alert; answers its iid once it is stored (the service may be restarting: retried). */
  const trigger = async (title: string) => {
    await until(async () => {
      const res = await fetch(hook.url, {
        method: "POST",
        headers: { authorization: `Bearer ${hook.token}`, "content-type": "application/json", prefer: "wait" },
        body: JSON.stringify({ title, fingerprint: title }),
      }).catch(() => undefined);
      await res?.text();
      return res?.status === 200;
    });
    const list = await owner().get(`${alerts()}?search=${encodeURIComponent(title)}`);
    return (list.body as Array<{ iid: number }>)[0]?.iid as number;
  };
  const escalation = async (iid: number) => {
    const res = await owner().get(`${alerts()}/${iid}`);
    return res.status === 200 ? (res.body.escalation as { next_page_at: string | null; pages: unknown[] } | null) : null;
  };

  /**
   * Whether alert-service recorded the SMTP server's acceptance of a page (its mail store's
   * `mail_deliveries`, keyed `<page key>:<user id>`). A SIGKILL between the acceptance and this
   * record sends the page again by design (at least once, docs/oncall.md), so the kill waits for it.
   */
  const deliveryRecorded = async (pageKey: string) => {
    const key = `${pageKey}:${catId}`;
    if (alertEnv.MONGO_URL) {
      const client = await MongoClient.connect(alertEnv.MONGO_URL);
      try {
        const db = client.db(alertEnv.MONGO_DB);
        return (await db.collection<{ _id: string }>("mail_deliveries").findOne({ _id: key })) !== null;
      } finally {
        await client.close();
      }
    }
    const sqlite = openSqlite(join(dir, "alert", "alert.db"));
    try {
      return sqlite.prepare("SELECT 1 FROM mail_deliveries WHERE key = ?").get(key) !== undefined;
    } finally {
      sqlite.close();
    }
  };

  beforeAll(async () => {
    if (!available) return;
    dir = mkdtempSync(join(tmpdir(), "tocsin-paging-durability-"));
    sink = await startSmtpSink();
    const logger = silentLogger();
    const db = (s: string) => `tocsin_pgdur_${s}_${process.pid}_${Date.now().toString(36)}`;
    const base = { LOG_LEVEL: "silent", ADMIN_TOKEN: ADMIN, SECRET_KEY: SECRET };
    const auth = await bootAuth({ ...base, AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dir, "auth") }, { logger });
    stops.push(() => auth.stop());
    const settings = await bootSettings(
      { ...base, AUTH_SERVICE_ADDR: auth.address, SETTINGS_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dir, "settings") },
      { logger },
    );
    stops.push(() => settings.stop());
    alertPort = await freePort();
    alertEnv = {
      ...process.env,
      ALERT_SERVICE_ADDR: `127.0.0.1:${alertPort}`,
      AUTH_SERVICE_ADDR: auth.address,
      SETTINGS_SERVICE_ADDR: settings.address,
      DATA_DIR: join(dir, "alert"),
      SECRET_KEY: SECRET,
      LOG_LEVEL: "error",
      SMTP_URL: sink.url,
      PAGING_SECOND_MS: "20",
      MAIL_RETRY_INITIAL_MS: "100",
      MAIL_RETRY_MAX_MS: "500",
      MONGO_URL: "",
      REDIS_URL: "",
      MONGO_DB: db("alert"),
      QUEUE_PREFIX: db("q"),
      ...storeEnv,
    };
    await startAlert();
    stops.push(killAlert);
    const gateway = await bootGateway(
      {
        ...base,
        PORT: "0",
        AUTH_SERVICE_ADDR: auth.address,
        ALERT_SERVICE_ADDR: `127.0.0.1:${alertPort}`,
        SETTINGS_SERVICE_ADDR: settings.address,
      },
      { logger },
    );
    stops.push(() => gateway.stop());
    url = gateway.url;
    const cat = await seedUser(url, ADMIN, { username: "cat" });
    catEmail = cat.user.email;
    catId = cat.user.id;
    const group = await seedGroup(url, ADMIN, { path: "ops", plan: "premium" });
    projectId = (await seedProject(url, ADMIN, { path: "pager", namespaceId: group.id })).id;
    await addMember(url, ADMIN, "projects", projectId, cat.user.id, 30);
    const oncall = `/api/v4/projects/${projectId}/incident_management`;
    expect((await owner().post(`${oncall}/oncall_schedules`, { name: "Primary", timezone: "UTC" })).status).toBe(201);
    const rotation = await owner().post(`${oncall}/oncall_schedules/1/rotations`, {
      name: "Always cat",
      starts_at: "2020-01-06T00:00",
      rotation_length: { length: 1, unit: "weeks" },
      participants: ["cat"],
    });
    expect(rotation.status, rotation.text).toBe(201);
    const policy = await owner().post(`${oncall}/escalation_policies`, {
      name: "Durable",
      rules: [
        { status: "acknowledged", elapsed_time_seconds: 0, oncall_schedule_iid: 1 },
        { status: "acknowledged", elapsed_time_seconds: 150, oncall_schedule_iid: 1 },
      ],
    });
    expect(policy.status, policy.text).toBe(201);
    const created = await owner().post(`/api/v4/projects/${projectId}/alert_management/http_integrations`, {
      name: "Monitor",
      active: true,
    });
    expect(created.status, created.text).toBe(201);
    hook = { url: `${url}${new URL(created.body.url as string).pathname}`, token: created.body.token as string };
  }, 120_000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await sink?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(!available)(
    "a rule scheduled before the SIGKILL pages once after the restart; the rule that fired before it is not sent again",
    async () => {
      const iid = await trigger("Disk full");
      // Scheduled: the escalation is recorded (its rules are queued by the same job).
      await until(async () => (await escalation(iid))?.next_page_at);
      await until(() => pages(iid, 0).length === 1);
      await until(() => deliveryRecorded(String(pages(iid, 0)[0]?.headers.get("x-tocsin-page"))));
      await killAlert();
      await startAlert();
      await until(() => pages(iid, 1).length === 1, 60_000);
      // A control alert triggered after the restart pages later than the first one's rules.
      const control = await trigger("Control");
      await until(() => pages(control, 1).length === 1, 60_000);
      expect(pages(iid, 0)).toHaveLength(1);
      expect(pages(iid, 1)).toHaveLength(1);
      const e = await escalation(iid);
      expect(e?.pages).toHaveLength(2);
      expect(e?.next_page_at).toBeNull();
    },
    120_000,
  );
});
