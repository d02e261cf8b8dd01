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

const HOST_PORT = /^[^\s:,/]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/;
const IPV4_PORT = /^(localhost|\d{1,3}(\.\d{1,3}){3}):\d{1,5}$/;
const IPV6_PORT = /^\[[0-9a-fA-F:]+\]:\d{1,5}$/;
const DNS_TARGET = /^dns:(\/\/[^/\s]*)?\/[^\s:,/]+:\d{1,5}$/;

/**
 * Where a gRPC service is reached (PRODUCT.md section 1): `host:port`; a comma-separated list of
 * replicas given by IP address (or `localhost`), all IPv4 or all IPv6; or `dns:///host:port`,
 * every address the name resolves to. Both lists are balanced round-robin by the clients.
 */
function isServiceAddress(value: string): boolean {
  if (HOST_PORT.test(value) || DNS_TARGET.test(value)) return true;
  const entries = value.split(",").map((e) => e.trim());
  return entries.length > 1 && (entries.every((e) => IPV4_PORT.test(e)) || entries.every((e) => IPV6_PORT.test(e)));
}

const addressSchema = z
  .string()
  .refine(isServiceAddress, "expected host:port, a comma-separated list of ip:port replicas, or dns:///host:port");

/** Variables shared by every process (PRODUCT.md section 1). */
export const commonEnv = {
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  AUTH_SERVICE_ADDR: addressSchema.default("127.0.0.1:50051"),
  ALERT_SERVICE_ADDR: addressSchema.default("127.0.0.1:50052"),
  SETTINGS_SERVICE_ADDR: addressSchema.default("127.0.0.1:50053"),
};

/** LISTEN_ADDR: where a gRPC service process listens, when not on its own `*_SERVICE_ADDR`. */
export const listenEnv = {
  LISTEN_ADDR: z.string().regex(HOST_PORT, "expected host:port").optional(),
};

/**
 * A gRPC service listens on LISTEN_ADDR, else on its own `*_SERVICE_ADDR` — which must then be
 * one `host:port`, not a list of replicas or a dns:/// name. Use with `superRefine`.
 */
export function requireListenAddr(ownKey: string) {
  return (env: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    const own = env[ownKey];
    if (env.LISTEN_ADDR === undefined && typeof own === "string" && !HOST_PORT.test(own)) {
      ctx.addIssue({
        code: "custom",
        path: ["LISTEN_ADDR"],
        message: `required when ${ownKey} names several replicas or a dns:/// address`,
      });
    }
  };
}

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
