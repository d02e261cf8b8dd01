import { type Clock, createLogger, type Logger } from "@tocsin/core";
import { loadConfig } from "./config.js";
import type { Directory, SettingsStore } from "./domain/ports.js";
import { createSettingsServer } from "./service.js";

export { loadConfig, type SettingsConfig } from "./config.js";
export type { Directory, SettingsStore } from "./domain/ports.js";

export interface RunningSettingsService {
  address: string;
  stop(): Promise<void>;
}

export interface StartOverrides {
  logger?: Logger;
  clock?: Clock;
  directory?: Directory;
  store?: SettingsStore;
}

function hostOf(addr: string): string {
  const host = addr.slice(0, addr.lastIndexOf(":"));
  return host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host;
}

/**
 * Starts settings-service: opens the store, binds gRPC on SETTINGS_SERVICE_ADDR (port 0 allowed)
 * and goes SERVING once the store and auth-service answer.
 */
export async function startSettingsService(
  env: Record<string, string | undefined>,
  overrides: StartOverrides = {},
): Promise<RunningSettingsService> {
  const config = loadConfig(env);
  const logger = overrides.logger ?? createLogger("settings-service", config.LOG_LEVEL);
  const { server, store, auth, directoryCache } = await createSettingsServer(config, { ...overrides, logger });
  let port: number;
  try {
    await store.ping();
    port = await server.listen(config.SETTINGS_SERVICE_ADDR);
  } catch (err) {
    await store.close();
    directoryCache?.close();
    auth?.close();
    throw err;
  }
  let stopped = false;
  const becomeServing = async () => {
    while (!stopped && auth) {
      try {
        await auth.waitForReady(2000);
        break;
      } catch {
        logger.warn({ auth: config.AUTH_SERVICE_ADDR }, "auth-service not reachable yet");
      }
    }
    if (!stopped) server.setServing(true);
  };
  void becomeServing();
  return {
    address: `${hostOf(config.SETTINGS_SERVICE_ADDR)}:${port}`,
    async stop() {
      stopped = true;
      await server.shutdown(5000);
      directoryCache?.close();
      auth?.close();
      // A store passed in by the caller is the caller's to close.
      if (!overrides.store) await store.close();
    },
  };
}
