import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig as alertConfig, createAlertService } from "@tocsin/alert-service";
import { loadConfig as authConfig, createAuthService } from "@tocsin/auth-service";
import { type Clock, type Logger, type ServiceDeps, silentLogger, systemClock } from "@tocsin/core";
import { createGateway, loadConfig as gatewayConfig } from "@tocsin/gateway";
import { createSettingsService, loadConfig as settingsConfig } from "@tocsin/settings-service";

type Env = Record<string, string | undefined>;
const depsOf = (deps: Partial<ServiceDeps> = {}): ServiceDeps => ({
  logger: deps.logger ?? silentLogger(),
  clock: deps.clock ?? systemClock,
});

/** Each service from an environment, the way its main.ts starts it (config parsed once, then create). */
export const bootAuth = (env: Env, deps?: Partial<ServiceDeps>) => createAuthService(authConfig(env), depsOf(deps));
export const bootSettings = (env: Env, deps?: Partial<ServiceDeps>) => createSettingsService(settingsConfig(env), depsOf(deps));
export const bootAlert = (env: Env, deps?: Partial<ServiceDeps>) => createAlertService(alertConfig(env), depsOf(deps));
export const bootGateway = (env: Env, deps?: Partial<ServiceDeps>) => createGateway(gatewayConfig(env), depsOf(deps));

export interface SystemOptions {
  /** Extra environment for every process (e.g. MONGO_URL, REDIS_URL). */
  env?: Record<string, string>;
  adminToken?: string;
  /** Logger for every process (default: silent), e.g. to capture log output in a test. */
  logger?: Logger;
  /** Clock for every service (default: the system clock). */
  clock?: Clock;
  /** Extra environment for alert-service alone (e.g. METRICS_PORT=0 for its metrics port). */
  alertEnv?: Record<string, string>;
}

export interface RunningSystem {
  /** Gateway base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  adminToken: string;
  authAddr: string;
  alertAddr: string;
  settingsAddr: string;
  dataDir: string;
  /** alert-service's data directory (its SQLite files, the mail outbox). */
  alertDataDir: string;
  /** alert-service's metrics port, when `alertEnv` set METRICS_PORT. */
  alertMetricsPort: number | undefined;
  /** Stops one service early (e.g. to see the gateway answer 503); `stop()` skips it later. */
  stopService(name: "auth" | "alert" | "settings"): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Boots the whole system in-process on free ports (real gRPC, real HTTP), in dependency order:
 * auth, then settings and alert, then the gateway. Each service gets its own data directory.
 * The one in-process boot of the suites: tests/alert-email-system.ts and tests/oncall-system.ts
 * call it with their options. (The process boots: tests/start-process.ts, the `npm start` path
 * that tests/chaos-system.ts wraps; tests/multi-replica-system.ts, two replicas of each service.)
 */
export async function startSystem(options: SystemOptions = {}): Promise<RunningSystem> {
  const dataDir = mkdtempSync(join(tmpdir(), "tocsin-system-"));
  const adminToken = options.adminToken ?? "admin-token-for-tests-0123456789";
  const deps = depsOf(options);
  const base = {
    LOG_LEVEL: "silent",
    ADMIN_TOKEN: adminToken,
    SECRET_KEY: "test-secret-key-0123456789abcdef",
    // Rate-limit counters of this system alone, even in a Redis shared with other runs.
    RATE_LIMIT_PREFIX: uniqueDb("limits"),
    ...options.env,
  };
  const auth = await bootAuth(
    { ...base, AUTH_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dataDir, "auth"), MONGO_DB: uniqueDb("auth") },
    deps,
  );
  const withAuth = { ...base, AUTH_SERVICE_ADDR: auth.address };
  const settings = await bootSettings(
    { ...withAuth, SETTINGS_SERVICE_ADDR: "127.0.0.1:0", DATA_DIR: join(dataDir, "settings"), MONGO_DB: uniqueDb("settings") },
    deps,
  );
  const alert = await bootAlert(
    {
      ...withAuth,
      ALERT_SERVICE_ADDR: "127.0.0.1:0",
      SETTINGS_SERVICE_ADDR: settings.address,
      DATA_DIR: join(dataDir, "alert"),
      MONGO_DB: uniqueDb("alert"),
      ...options.alertEnv,
    },
    deps,
  );
  const gateway = await bootGateway(
    { ...withAuth, PORT: "0", ALERT_SERVICE_ADDR: alert.address, SETTINGS_SERVICE_ADDR: settings.address },
    deps,
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
    alertDataDir: join(dataDir, "alert"),
    alertMetricsPort: alert.metricsPort,
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
