import { type Clock, systemClock } from "./clock.js";
import { ConfigError } from "./config.js";
import { createLogger, type Logger } from "./logger.js";
import { onShutdown } from "./shutdown.js";

/** What every `createXService(config, deps)` receives besides its configuration. */
export interface ServiceDeps {
  logger: Logger;
  clock: Clock;
}

/** What every `createXService` resolves to: a gRPC service's connectable `host:port`, and a stop. */
export interface RunningService {
  address: string;
  /** Graceful and idempotent: NOT_SERVING, drain, then close workers, clients and storage. */
  stop(): Promise<void>;
}

/** Startup failed: the configuration did not parse, or the service could not start. */
const EXIT_STARTUP_FAILED = 1;

/**
 * The one process entry point (`main.ts` is this one call): parses the environment once, builds
 * the root logger, starts the service and stops it gracefully on SIGTERM/SIGINT. Any startup
 * failure is one `fatal` log line — for a bad configuration it names every bad variable, never
 * a value — and exit code 1.
 */
export async function runMain<C extends { logLevel: string }, S extends { stop(): Promise<void> }>(
  name: string,
  parseConfig: (env: Record<string, string | undefined>) => C,
  createService: (config: C, deps: ServiceDeps) => Promise<S>,
  env: Record<string, string | undefined> = process.env,
): Promise<void> {
  let config: C;
  try {
    config = parseConfig(env);
  } catch (err) {
    const logger = createLogger(name);
    if (err instanceof ConfigError) {
      logger.fatal({ problems: err.problems }, `${name} did not start: invalid configuration: ${err.problems.join("; ")}`);
    } else {
      logger.fatal({ err }, `${name} did not start: the configuration could not be read`);
    }
    process.exit(EXIT_STARTUP_FAILED);
  }
  const logger = createLogger(name, config.logLevel);
  try {
    const service = await createService(config, { logger, clock: systemClock });
    logger.info(where(service), `${name} listening`);
    onShutdown(logger, [() => service.stop()]);
  } catch (err) {
    logger.fatal({ err }, `${name} did not start`);
    process.exit(EXIT_STARTUP_FAILED);
  }
}

function where(service: object): Record<string, unknown> {
  const { address, url } = service as { address?: unknown; url?: unknown };
  return { ...(address === undefined ? {} : { address }), ...(url === undefined ? {} : { url }) };
}
