import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@tocsin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "./api.js";
import { built, startTocsin, stopTocsin } from "./start-process.js";

// The real `npm start` path, run as processes by tests/start-process.ts.
const ADMIN_TOKEN = "start-test-admin-token-0123456789";

describe.skipIf(!built)("npm start (scripts/start.mjs)", () => {
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "tocsin-start-"));
    const [port, auth, alert, settings] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    env = {
      PORT: String(port),
      AUTH_SERVICE_ADDR: `127.0.0.1:${auth}`,
      ALERT_SERVICE_ADDR: `127.0.0.1:${alert}`,
      SETTINGS_SERVICE_ADDR: `127.0.0.1:${settings}`,
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
    };
  });

  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("starts the four processes, is healthy and ready, and stops cleanly on SIGTERM", async () => {
    // At info level every process logs where it listens, so each prefix shows up.
    const started = await startTocsin({ ...env, LOG_LEVEL: "info" });
    try {
      expect(started.url).toBe(`http://localhost:${env.PORT}`);
      const health = await fetch(`${started.url}/-/health`);
      expect(health.status).toBe(200);
      const readiness = await fetch(`${started.url}/-/readiness`);
      expect(readiness.status).toBe(200);
      // "Tocsin is running" follows the ports answering; a process's own "listening" line may
      // still be on its way through the launcher's line reader.
      for (const name of ["auth", "settings", "alert", "gateway"])
        await expect.poll(() => started.output()).toMatch(new RegExp(`^${name}\\s*\\| `, "m"));
    } finally {
      expect(await stopTocsin(started)).toBe(0);
    }
  }, 90_000);

  it("keeps data across a restart (embedded store under DATA_DIR)", async () => {
    const first = await startTocsin(env);
    let userToken: string;
    try {
      const admin = api(first.url, ADMIN_TOKEN);
      const user = await admin.post("/api/v4/users", {
        username: "restart-user",
        email: "restart@example.com",
        name: "Restart User",
      });
      expect(user.status).toBe(201);
      const token = await admin.post(`/api/v4/users/${user.body.id}/personal_access_tokens`, { name: "t", scopes: ["api"] });
      expect(token.status).toBe(201);
      userToken = token.body.token;
    } finally {
      expect(await stopTocsin(first)).toBe(0);
    }
    const second = await startTocsin(env);
    try {
      const me = await api(second.url, userToken).get("/api/v4/user");
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ username: "restart-user", email: "restart@example.com" });
    } finally {
      expect(await stopTocsin(second)).toBe(0);
    }
  }, 120_000);

  it("restarts a process that dies and keeps the others serving", async () => {
    const started = await startTocsin(env);
    try {
      const pid = Number(/started: .*settings \(pid (\d+)\)/.exec(started.output())?.[1]);
      expect(pid).toBeGreaterThan(0);
      process.kill(pid, "SIGKILL");
      await expect.poll(() => started.output(), { timeout: 30_000 }).toMatch(/settings restarted \(pid \d+\)/);
      // The restarted settings-service answers through the gateway that kept running.
      const admin = api(started.url, ADMIN_TOKEN);
      await expect
        .poll(async () => (await admin.get("/api/v4/notification_settings")).status, { timeout: 30_000, interval: 250 })
        .toBe(200);
      expect(started.child.exitCode).toBeNull();
    } finally {
      expect(await stopTocsin(started)).toBe(0); // the restarted process stopped cleanly
    }
  }, 120_000);
});
