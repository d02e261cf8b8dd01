import { ConfigError, createLogger, onShutdown } from "@tocsin/core";
import { loadConfig, startGateway } from "./index.js";

async function main() {
  const config = loadConfig(process.env);
  const logger = createLogger("gateway", config.logLevel);
  const gateway = await startGateway(process.env, { logger });
  const shown = `http://localhost:${gateway.port}`;
  logger.info({ url: shown, externalUrl: config.externalUrl }, `Tocsin gateway listening on ${shown}`);
  onShutdown(logger, [() => gateway.stop()]);
}

main().catch((err: unknown) => {
  // A configuration error names every bad variable; print it plainly and stop.
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
