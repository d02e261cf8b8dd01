import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAlertService } from "@tocsin/alert-service";
import { startAuthService } from "@tocsin/auth-service";
import { type Logger, silentLogger } from "@tocsin/core";
import { startGateway } from "@tocsin/gateway";
import { startSettingsService } from "@tocsin/settings-service";

export interface SystemOptions {
  /** Extra environment for every process (e.g. MONGO_URL, REDIS_URL). */
  env?: Record<string, string>;
  adminToken?: string;
  /** Logger for every process (default: silent), e.g. to capture log output in a test. */
  logger?: Logger;
}

export interface RunningSystem {
  /** Gateway base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  adminToken: string;
  authAddr: string;
  alertAddr: string;
  settingsAddr: string;
  dataDir: string;
  /** Stops one service early (e.g. to see the gateway answer 503); `stop()` skips it later. */
  stopService(name: "auth" | "alert" | "settings"): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Boots the whole system in-process on free ports (real gRPC, real HTTP), in dependency order:
 * auth, then settings and alert, then the gateway. Each service gets its own data directory.
 */
export async function startSystem(options: SystemOptions = {}): Promise<RunningSystem> {
  const dataDir = mkdtempSync(join(tmpdir(), "tocsin-system-"));
  const adminToken = options.adminToken ?? "admin-token-for-tests-0123456789";
  const logger = options.logger ?? silentLogger();
  const base = {
    LOG_LEVEL: "silent",
    ADMIN_TOKEN: adminToken,
    SECRET_KEY: "test-secret-key-0123456789abcdef",
    ...options.env,
  };
  const auth = await startAuthService(
    { ...base, AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dataDir, "auth"), MONGO_DB: uniqueDb("auth") },
    { logger },
  );
  const withAuth = { ...base, AUTH_SERVICE_ADDR: auth.address };
  const settings = await startSettingsService(
    { ...withAuth, SETTINGS_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dataDir, "settings"), MONGO_DB: uniqueDb("settings") },
    { logger },
  );
  const alert = await startAlertService(
    { ...withAuth, ALERT_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dataDir, "alert"), MONGO_DB: uniqueDb("alert") },
    { logger },
  );
  const gateway = await startGateway(
    {
      ...withAuth,
      PORT: "0",
      ALERT_SERVICE_ADDR: alert.address,
      SETTINGS_SERVICE_ADDR: settings.address,
    },
    { logger },
  );
  const services = { auth, alert, settings };
  const stopped = new Set<keyof typeof services>();
  const stopService = async (name: keyof typeof services) => {
    if (stopped.has(name)) return;
    stopped.add(name);
    await services[name].stop();
  };
  return {
    url: gateway.url,
    adminToken,
    authAddr: auth.address,
    alertAddr: alert.address,
    settingsAddr: settings.address,
    dataDir,
    stopService,
    async stop() {
      await gateway.stop();
      await Promise.all([stopService("alert"), stopService("settings")]);
      await stopService("auth");
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let counter = 0;
function uniqueDb(service: string): string {
  counter += 1;
  return `tocsin_${service}_${process.pid}_${Date.now().toString(36)}_${counter}`;
}
