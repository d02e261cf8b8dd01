import { type Clock, createLogger, type Logger } from "@tocsin/core";
import { loadConfig } from "./config.js";
import { createAlertService } from "./service.js";

export { type AlertServiceConfig, loadConfig } from "./config.js";

/**
 * Starts alert-service: parses `env` once, opens its store, binds its gRPC server (port 0 allowed)
 * and resolves to the bound address and a graceful stop.
 */
export async function startAlertService(
  env: Record<string, string | undefined>,
  overrides: { logger?: Logger; clock?: Clock } = {},
): Promise<{ address: string; stop(): Promise<void> }> {
  const config = loadConfig(env);
  const logger = overrides.logger ?? createLogger("alert-service", config.logLevel);
  return createAlertService(config, { logger, ...(overrides.clock ? { clock: overrides.clock } : {}) });
}
