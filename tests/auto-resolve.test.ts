import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@tocsin/core";
import { freePort, until } from "@tocsin/testing";
import { describe, expect, inject, it } from "vitest";
import { api } from "./api.js";
import { bootAlert, bootAuth, bootGateway } from "./harness.js";
import { seedGroup, seedProject } from "./seed.js";
import { rawPost } from "./webhook-client.js";

const ADMIN = "auto-resolve-admin-token-0123456789";
const mongoUrl = inject("mongoUrl");
const redisUrl = inject("redisUrl");
const backends: Array<[string, Record<string, string>]> = [["embedded store, in-process queue", {}]];
if (mongoUrl && redisUrl) backends.push(["MongoDB, BullMQ", { MONGO_URL: mongoUrl, REDIS_URL: redisUrl }]);

/** One auto-resolve "minute" lasts this long in these tests (AUTO_RESOLVE_MINUTE_MS). */
const MINUTE_MS = 1500;

/** auth, alert-service (restartable on the same address and data) and a gateway. */
async function boot(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-auto-resolve-"));
  const logger = silentLogger();
  const base = { LOG_LEVEL: "silent", ADMIN_TOKEN: ADMIN, SECRET_KEY: "auto-resolve-secret-0123456789ab", ...env };
  const auth = await bootAuth(
    {
      ...base,
      AUTH_SERVICE_ADDR: "127.0.0.1:0",
      DATA_DIR: join(dir, "auth"),
      MONGO_DB: `tocsin_ar_auth_${process.pid}_${Date.now()}`,
    },
    { logger },
  );
  const alertEnv = {
    ...base,
    AUTH_SERVICE_ADDR: auth.address,
    ALERT_SERVICE_ADDR: `127.0.0.1:${await freePort()}`,
    DATA_DIR: join(dir, "alert"),
    MONGO_DB: `tocsin_ar_alert_${process.pid}_${Date.now()}`,
    AUTO_RESOLVE_MINUTE_MS: String(MINUTE_MS),
  };
  let alert = await bootAlert(alertEnv, { logger });
  const gateway = await bootGateway(
    {
      ...base,
      PORT: "0",
      AUTH_SERVICE_ADDR: auth.address,
      ALERT_SERVICE_ADDR: alertEnv.ALERT_SERVICE_ADDR,
      SETTINGS_SERVICE_ADDR: "127.0.0.1:1",
    },
    { logger },
  );
  return {
    url: gateway.url,
    async restartAlert() {
      await alert.stop();
      alert = await bootAlert(alertEnv, { logger });
    },
    async stop() {
      await gateway.stop();
      await alert.stop();
      await auth.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe.each(backends)("auto_resolve_minutes (%s)", (_name, env) => {
  it("resolves a triggered alert with no new event for N minutes, closes its incident, also across a restart of alert-service", async () => {
    const sys = await boot(env);
    try {
      const admin = api(sys.url, ADMIN);
      const group = await seedGroup(sys.url, ADMIN, { path: "quiet", plan: "premium" });
      const project = await seedProject(sys.url, ADMIN, { path: "svc", namespaceId: group.id });
      const mgmt = `/api/v4/projects/${project.id}/alert_management`;
      expect((await admin.put(`${mgmt}/settings`, { create_incident: true, auto_close_incident: true })).status).toBe(200);
      const bad = await admin.post(`${mgmt}/http_integrations`, { name: "Bad", active: true, auto_resolve_minutes: 10_081 });
      expect(bad.status).toBe(400);
      const created = await admin.post(`${mgmt}/http_integrations`, { name: "Quiet", active: true, auto_resolve_minutes: 1 });
      expect(created.status, created.text).toBe(201);
      expect(created.body.auto_resolve_minutes).toBe(1);
      const post = (fingerprint: string) =>
        rawPost(sys.url, new URL(created.body.url).pathname, JSON.stringify({ title: `Quiet ${fingerprint}`, fingerprint }), {
          authorization: `Bearer ${created.body.token}`,
          prefer: "wait",
        });
      const alertOf = async (fingerprint: string) => {
        const res = await admin.get(`${mgmt}/alerts?search=${encodeURIComponent(`Quiet ${fingerprint}`)}`);
        return (res.body as Array<{ iid: number; status: string; events: number; ended_at: string | null }>)[0];
      };

      // A second event pushes the resolution back: it comes one minute after the last event.
      expect((await post("a")).status).toBe(200);
      // Taken before the second post: its event (and the resolve delay it starts) is later still.
      const lastEventAt = Date.now();
      expect((await post("a")).status).toBe(200);
      const resolved = await until(
        async () => {
          const a = await alertOf("a");
          return a?.status === "resolved" ? a : undefined;
        },
        20_000,
        100,
      );
      expect(resolved.events).toBe(2);
      expect(Date.parse(resolved.ended_at as string)).toBeGreaterThanOrEqual(lastEventAt + MINUTE_MS - 200);
      const details = await admin.get(`${mgmt}/alerts/${resolved.iid}`);
      const notes = (details.body.activity as Array<{ note: string }>).map((n) => n.note);
      expect(notes).toContain("automatically resolved after 1 minute without new events");
      await until(
        async () => {
          const res = await admin.get(`/api/v4/projects/${project.id}/alert_management/incidents`);
          const incidents = res.body as Array<{ alert_iid: number; status: string }>;
          return incidents.find((i) => i.alert_iid === resolved.iid)?.status === "closed";
        },
        20_000,
        100,
      );

      // The delayed job is durable: alert-service restarts before it is due, and it still runs.
      expect((await post("b")).status).toBe(200);
      await sys.restartAlert();
      await until(async () => (await alertOf("b"))?.status === "resolved", 20_000, 100);
    } finally {
      await sys.stop();
    }
  }, 60_000);
});
