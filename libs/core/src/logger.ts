import { type Logger, pino } from "pino";

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

/** One root logger per process; children carry `requestId`, `jobId` and the like. */
export function createLogger(service: string, level = "info"): Logger {
  return pino({
    name: service,
    level,
    redact: { paths: REDACT_PATHS, censor: "[REDACTED]" },
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

/** A logger that writes nothing, for tests. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
