import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@tocsin/core";
import { freePort } from "@tocsin/testing";
import { bootAuth, bootGateway, bootSettings } from "./harness.js";

/**
 * The part of the system the notification settings need: auth-service, settings-service and the
 * gateway (alert-service's address points nowhere), booted in-process on free ports. Unlike
 * `tests/harness.ts`, settings-service can be restarted on the same address.
 */
export interface SettingsSystem {
  url: string;
  adminToken: string;
  authAddr: string;
  settingsAddr: string;
  restartSettings(): Promise<void>;
  stop(): Promise<void>;
}

export async function startSettingsSystem(env: Record<string, string> = {}): Promise<SettingsSystem> {
  const dataDir = mkdtempSync(join(tmpdir(), "tocsin-settings-system-"));
  const adminToken = "admin-token-for-settings-tests-0123";
  const logger = silentLogger();
  const base = { LOG_LEVEL: "silent", ADMIN_TOKEN: adminToken, SECRET_KEY: "test-secret-key-0123456789abcdef", ...env };
  const auth = await bootAuth({ ...base, AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dataDir, "auth") }, { logger });
  const settingsAddr = `127.0.0.1:${await freePort()}`;
  const settingsEnv = {
    ...base,
    AUTH_SERVICE_ADDR: auth.address,
    SETTINGS_SERVICE_ADDR: settingsAddr,
    DATA_DIR: join(dataDir, "settings"),
  };
  let settings = await bootSettings(settingsEnv, { logger });
  const gateway = await bootGateway(
    {
      ...base,
      PORT: "0",
      AUTH_SERVICE_ADDR: auth.address,
      SETTINGS_SERVICE_ADDR: settingsAddr,
      ALERT_SERVICE_ADDR: "127.0.0.1:1",
    },
    { logger },
  );
  return {
    url: gateway.url,
    adminToken,
    authAddr: auth.address,
    settingsAddr,
    async restartSettings() {
      await settings.stop();
      settings = await bootSettings(settingsEnv, { logger });
    },
    async stop() {
      await gateway.stop();
      await settings.stop();
      await auth.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
