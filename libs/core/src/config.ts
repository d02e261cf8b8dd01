import { z } from "zod";

/** Thrown when the environment does not parse; the message names every bad variable. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/**
 * Parses the environment once with a zod object schema. Every issue is collected so that one
 * message names every bad variable; values are never echoed (they may be secrets).
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const cleaned: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    // An empty variable counts as unset, as most deploy tools write them.
    if (value !== undefined && value !== "") cleaned[key] = value;
  }
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join(".") || "(environment)";
    return `${name}: ${issue.message}`;
  });
  throw new ConfigError(problems);
}

const port = z.coerce.number().int().min(0).max(65535);

/** A `host:port` address. */
const addressSchema = z.string().regex(/^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/, "expected host:port");

/** Variables shared by every process (PRODUCT.md section 1). */
export const commonEnv = {
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  AUTH_SERVICE_ADDR: addressSchema.default("127.0.0.1:50051"),
  ALERT_SERVICE_ADDR: addressSchema.default("127.0.0.1:50052"),
  SETTINGS_SERVICE_ADDR: addressSchema.default("127.0.0.1:50053"),
};

/** Storage variables for services that keep data. */
export const storageEnv = {
  MONGO_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, "expected a mongodb:// or mongodb+srv:// URL")
    .optional(),
  MONGO_DB: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,63}$/, "expected a database name")
    .optional(),
  DATA_DIR: z.string().default("./data"),
};

export const redisEnv = {
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "expected a redis:// or rediss:// URL")
    .optional(),
};

export const portSchema = port;
export { z };
