import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  commonEnv,
  type Logger,
  listenEnv,
  parseConfig,
  randomHex,
  redisEnv,
  requireListenAddr,
  storageEnv,
  z,
} from "@tocsin/core";
import { mongoDbName as storeDbName, storePrefix } from "@tocsin/store";
import { otelEnv, tracingConfigOf } from "@tocsin/telemetry";

const schema = z
  .object({
    ...commonEnv,
    ...otelEnv,
    ...listenEnv,
    ...storageEnv,
    /** Set: auth events (watch streams) travel over Redis pub/sub to every replica. */
    ...redisEnv,
    /** Redis channel prefix of auth events; by default one per data store (see eventsPrefix). */
    EVENTS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9:_-]{1,64}$/, "expected 1-64 characters of A-Z a-z 0-9 : _ -")
      .optional(),
    /** If set, user `root` (admin) has this `api` token. */
    ADMIN_TOKEN: z.string().min(8, "must be at least 8 characters").optional(),
    /** If set, user `root` (admin) signs in to the console with this password. */
    ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
    /** Encrypts integration keys at rest; generated into DATA_DIR when unset. */
    SECRET_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  })
  .superRefine(requireListenAddr("AUTH_SERVICE_ADDR"))
  .transform((env) => ({
    logLevel: env.LOG_LEVEL,
    tracing: tracingConfigOf(env, "auth-service"),
    listenAddr: env.LISTEN_ADDR ?? env.AUTH_SERVICE_ADDR,
    dataDir: env.DATA_DIR,
    mongoUrl: env.MONGO_URL,
    mongoDb: env.MONGO_DB,
    redisUrl: env.REDIS_URL,
    eventsPrefix: env.EVENTS_PREFIX,
    adminToken: env.ADMIN_TOKEN,
    adminPassword: env.ADMIN_PASSWORD,
    secretKey: env.SECRET_KEY,
  }));

export type AuthConfig = z.output<typeof schema>;

/** Parses the environment once; the error names every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): AuthConfig {
  return parseConfig(schema, env);
}

/** Database name: MONGO_DB, else the URL's path, else `tocsin_auth`. */
export function mongoDbName(config: Pick<AuthConfig, "mongoUrl" | "mongoDb">): string {
  return storeDbName(config.mongoUrl, config.mongoDb, "tocsin_auth");
}

/**
 * The channel prefix of auth events: EVENTS_PREFIX, else one per data store (`tocsin:<mongo db>`,
 * or `tocsin:sqlite-<hash of DATA_DIR>`), so that exactly the replicas sharing a store hear each
 * other, even when several deployments (or test systems) share one Redis.
 */
export function eventsPrefix(config: Pick<AuthConfig, "eventsPrefix" | "mongoUrl" | "mongoDb" | "dataDir">): string {
  if (config.eventsPrefix) return config.eventsPrefix;
  return storePrefix({ mongoDb: config.mongoUrl ? mongoDbName(config) : undefined, dataDir: config.dataDir });
}

/**
 * SECRET_KEY, or the key kept in `${DATA_DIR}/secret.key` (created once, mode 0600, with a
 * warning). Losing that file makes stored integration keys unreadable.
 */
export function resolveSecretKey(config: Pick<AuthConfig, "secretKey" | "dataDir">, logger: Logger): string {
  if (config.secretKey) return config.secretKey;
  const file = join(config.dataDir, "secret.key");
  if (existsSync(file)) {
    const key = readFileSync(file, "utf8").trim();
    if (key.length >= 16) return key;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomHex(32);
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  logger.warn(
    { file },
    "SECRET_KEY is not set: generated one; keep this file (or set SECRET_KEY) or integration keys become unreadable",
  );
  return key;
}
