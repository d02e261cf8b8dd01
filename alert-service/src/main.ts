import { ConfigError, createLogger, onShutdown } from "@tocsin/core";
import { loadConfig } from "./config.js";
import { createAlertService } from "./service.js";

try {
  const config = loadConfig(process.env);
  const logger = createLogger("alert-service", config.logLevel);
  const service = await createAlertService(config, { logger });
  logger.info({ address: service.address }, "alert-service listening");
  onShutdown(logger, [() => service.stop()]);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(78);
  }
  throw err;
}
