import { type DestinationStream, type Logger, pino } from "pino";

export type { Logger };

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  "authorization",
  "*.authorization",
  "headers.authorization",
  "req.headers.authorization",
  "req.headers['private-token']",
  "headers['private-token']",
  "*.token",
  "token",
  "*.secret",
  "secret",
  "*.password",
  "password",
  "private_token",
  "*.private_token",
  "req.query.private_token",
];

/**
 * One root logger per process; children carry `requestId`, `jobId` and the like. `destination`:
 * where the JSON lines go instead of stdout (a worker thread hands them to its process's logger).
 */
export function createLogger(service: string, level = "info", destination?: DestinationStream): Logger {
  const options = {
    name: service,
    level,
    redact: { paths: REDACT_PATHS, censor: "[REDACTED]" },
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that writes nothing, for tests. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
