import { type Clock, createLogger, type Logger, systemClock } from "@tocsin/core";
import { loadConfig } from "./config.js";
import { createAuthService } from "./service.js";

export { type AuthConfig, loadConfig } from "./config.js";
export { createAuthService, SERVICE_NAME } from "./service.js";

export interface AuthServiceOverrides {
  logger?: Logger;
  clock?: Clock;
}

export interface RunningAuthService {
  /** `127.0.0.1:<bound port>`. */
  address: string;
  stop(): Promise<void>;
}

/** Parses `env`, opens the store, binds the gRPC server (port 0 allowed) and goes SERVING. */
export async function startAuthService(
  env: Record<string, string | undefined>,
  overrides: AuthServiceOverrides = {},
): Promise<RunningAuthService> {
  const config = loadConfig(env);
  const logger = overrides.logger ?? createLogger("auth-service", config.LOG_LEVEL);
  const { server, store, useCases } = await createAuthService(config, logger, overrides.clock ?? systemClock);
  let port: number;
  try {
    port = await server.listen(config.AUTH_SERVICE_ADDR);
  } catch (err) {
    await store.close();
    throw err;
  }
  server.setServing(true);
  let stopped = false;
  return {
    address: `127.0.0.1:${port}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      // Open watch streams end first, so that the graceful shutdown is not held up by them.
      useCases.hub.close();
      useCases.access.close();
      await server.shutdown();
      await store.close();
    },
  };
}
