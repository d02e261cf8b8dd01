import { ConfigError, createLogger, onShutdown } from "@tocsin/core";
import { loadConfig, startSettingsService } from "./index.js";

try {
  const config = loadConfig(process.env);
  const logger = createLogger("settings-service", config.LOG_LEVEL);
  const service = await startSettingsService(process.env, { logger });
  logger.info({ address: service.address }, "settings-service listening");
  onShutdown(logger, [() => service.stop()]);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(1);
}
