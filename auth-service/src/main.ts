import { createLogger, onShutdown } from "@tocsin/core";
import { loadConfig } from "./config.js";
import { startAuthService } from "./index.js";

const config = (() => {
  try {
    return loadConfig(process.env);
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
})();
const logger = createLogger("auth-service", config.LOG_LEVEL);
try {
  const service = await startAuthService(process.env, { logger });
  logger.info({ address: service.address, store: config.MONGO_URL ? "mongodb" : "sqlite" }, "auth-service listening");
  onShutdown(logger, [() => service.stop()]);
} catch (err) {
  logger.fatal({ err }, "auth-service failed to start");
  process.exit(1);
}
