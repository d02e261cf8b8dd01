import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { commonEnv, parseConfig, portSchema, redisEnv, storageEnv, z } from "@tocsin/core";
import { mongoDbName as storeDbName } from "@tocsin/store";

const schema = z
  .object({
    ...commonEnv,
    ...storageEnv,
    ...redisEnv,
    /** The gateway's port; only used for the default of EXTERNAL_URL. */
    PORT: portSchema.optional(),
    EXTERNAL_URL: z.url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" }).optional(),
    /** BullMQ key prefix; by default derived from where the alerts are stored (see queuePrefix). */
    QUEUE_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9:_-]{1,64}$/, "expected 1-64 characters of A-Z a-z 0-9 : _ -")
      .optional(),
    /** Not used by alert-service itself (keys are sealed by auth-service); accepted for a shared env file. */
    SECRET_KEY: z.string().min(16, "expected at least 16 characters").optional(),
  })
  .transform((env) => ({
    logLevel: env.LOG_LEVEL,
    alertServiceAddr: env.ALERT_SERVICE_ADDR,
    authServiceAddr: env.AUTH_SERVICE_ADDR,
    dataDir: env.DATA_DIR,
    mongoUrl: env.MONGO_URL,
    mongoDb: env.MONGO_DB,
    redisUrl: env.REDIS_URL,
    queuePrefix: env.QUEUE_PREFIX,
    // Integration URLs are `${externalUrl}/<full_path>/...`: no trailing slash.
    externalUrl: (env.EXTERNAL_URL ?? `http://localhost:${env.PORT || 8080}`).replace(/\/+$/, ""),
  }));

export type AlertServiceConfig = z.output<typeof schema>;

/** Parses alert-service's environment once; a ConfigError names every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): AlertServiceConfig {
  return parseConfig(schema, env as NodeJS.ProcessEnv);
}

/** The MongoDB database: MONGO_DB, else the path of MONGO_URL, else `tocsin_alert`. */
export function mongoDbName(config: Pick<AlertServiceConfig, "mongoUrl" | "mongoDb">): string {
  return storeDbName(config.mongoUrl, config.mongoDb, "tocsin_alert");
}

/**
 * The BullMQ prefix: QUEUE_PREFIX, else one per data store (`tocsin:<mongo db>`, or
 * `tocsin:sqlite-<hash of DATA_DIR>`), so that a worker only ever takes jobs whose alerts live
 * in its own store, even when several deployments (or test systems) share one Redis.
 */
export function queuePrefix(config: Pick<AlertServiceConfig, "queuePrefix" | "mongoUrl" | "mongoDb" | "dataDir">): string {
  if (config.queuePrefix) return config.queuePrefix;
  if (config.mongoUrl) return `tocsin:${mongoDbName(config)}`;
  return `tocsin:sqlite-${createHash("sha1").update(resolve(config.dataDir)).digest("hex").slice(0, 12)}`;
}
