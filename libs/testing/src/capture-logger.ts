import { Writable } from "node:stream";
import { type Logger, REDACT_PATHS } from "@tocsin/core";
import { pino } from "pino";

/** A real pino logger (same redaction as production) whose lines collect in memory. */
export function captureLogger(level = "debug"): { logger: Logger; text: () => string; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = pino({ level, redact: { paths: REDACT_PATHS, censor: "[REDACTED]" } }, stream);
  const text = () => chunks.join("");
  const lines = () =>
    text()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, text, lines };
}
