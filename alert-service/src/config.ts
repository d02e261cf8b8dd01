import { commonEnv, listenEnv, parseConfig, portSchema, redisEnv, requireListenAddr, storageEnv, z } from "@tocsin/core";
import { mongoDbName as storeDbName, storePrefix } from "@tocsin/store";
import { otelEnv, tracingConfigOf } from "@tocsin/telemetry";

const schema = z
  .object({
    ...commonEnv,
    ...otelEnv,
    ...listenEnv,
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
    /** Alert e-mails (PRODUCT.md section 9): unset → RFC 5322 files in DATA_DIR/outbox/. */
    SMTP_URL: z.url({ protocol: /^smtps?$/, error: "expected an smtp:// or smtps:// URL" }).optional(),
    /** Sender of alert e-mails; default `Tocsin <tocsin@<host of EXTERNAL_URL>>`. */
    MAIL_FROM: z.string().min(3).optional(),
    /** Serves Prometheus `/metrics` of the mail pipeline on this port; unset → no metrics server. */
    METRICS_PORT: portSchema.optional(),
    /** Storm control: length of a project's window and how many notifications it mails one by one. */
    MAIL_STORM_WINDOW_SECONDS: z.coerce.number().positive().default(600),
    MAIL_STORM_LIMIT: z.coerce.number().int().nonnegative().default(30),
    /** Mail retries: first delay, longest delay, and how long to keep trying (at least 24 h by default). */
    MAIL_RETRY_INITIAL_MS: z.coerce.number().int().positive().default(30_000),
    MAIL_RETRY_MAX_MS: z.coerce.number().int().positive().default(3_600_000),
    MAIL_RETRY_FOR_HOURS: z.coerce.number().positive().default(25),
    /**
     * Backlog bound (issue 25, docs/alert-processing.md): while this many alerts wait for
     * processing, webhook requests are held before their alerts are queued; 0 = never held.
     */
    INGEST_BACKLOG_LIMIT: z.coerce.number().int().min(0).max(10_000_000).default(5_000),
    /** Longest hold of one request (ms): it is then queued and answered whatever the backlog. */
    INGEST_BACKLOG_WAIT_MS: z.coerce.number().int().min(0).max(3_000).default(2_000),
    /** Default webhook budget of one integration per minute (PRODUCT.md section 10); 0 = unlimited. */
    WEBHOOK_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(6000),
    /** Length of one auto-resolve minute in ms: 60000; tests shorten it (auto_resolve_minutes: 1 → 1 s). */
    AUTO_RESOLVE_MINUTE_MS: z.coerce.number().int().min(100).max(60_000).default(60_000),
    /** Length of one second of escalation policies in ms: 1000; tests shorten it (a 60 s repeat → 60 × this). */
    PAGING_SECOND_MS: z.coerce.number().int().min(10).max(1000).default(1000),
    /**
     * true (default): with the embedded stores (SQLite, the SQLite queue) the alert lanes run in a
     * worker thread, off the event loop that accepts; false: in the main thread. Ignored with
     * REDIS_URL or MONGO_URL.
     */
    ALERT_PROCESSING_THREAD: z.enum(["true", "false"], { error: "expected true or false" }).default("true"),
    /**
     * Outbound channels (PRODUCT.md section 12): true allows http:// destination URLs and requests
     * to loopback, link-local and private addresses (GitLab's "allow requests to the local
     * network"); false (default) refuses them, checked after DNS resolution.
     */
    OUTBOUND_ALLOW_LOCAL_NETWORK: z.enum(["true", "false"], { error: "expected true or false" }).default("false"),
    /** Channel deliveries: first retry delay, longest delay, how long to keep trying (at least 24 h by default). */
    CHANNEL_RETRY_INITIAL_MS: z.coerce.number().int().positive().default(5_000),
    CHANNEL_RETRY_MAX_MS: z.coerce.number().int().positive().default(3_600_000),
    CHANNEL_RETRY_FOR_HOURS: z.coerce.number().positive().default(25),
    /** Channel deliveries: at most one message per destination this often (ms; Slack's 1 message/s). */
    CHANNEL_MIN_INTERVAL_MS: z.coerce.number().int().nonnegative().default(1_000),
    /** Channel storm control: window length, and how many messages a destination gets one by one in it. */
    CHANNEL_STORM_WINDOW_SECONDS: z.coerce.number().positive().default(600),
    CHANNEL_STORM_LIMIT: z.coerce.number().int().positive().default(30),
    /** How long one delivery attempt may take (ms). */
    CHANNEL_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    /** Signs the acknowledge links of page e-mails (HMAC, PRODUCT.md section 11); unset → pages carry no acknowledge link. */
    SECRET_KEY: z.string().min(16, "expected at least 16 characters").optional(),
  })
  .superRefine(requireListenAddr("ALERT_SERVICE_ADDR"))
  .transform((env) => ({
    logLevel: env.LOG_LEVEL,
    tracing: tracingConfigOf(env, "alert-service"),
    listenAddr: env.LISTEN_ADDR ?? env.ALERT_SERVICE_ADDR,
    authServiceAddr: env.AUTH_SERVICE_ADDR,
    settingsServiceAddr: env.SETTINGS_SERVICE_ADDR,
    dataDir: env.DATA_DIR,
    mongoUrl: env.MONGO_URL,
    mongoDb: env.MONGO_DB,
    redisUrl: env.REDIS_URL,
    queuePrefix: env.QUEUE_PREFIX,
    webhookRateLimitPerMinute: env.WEBHOOK_RATE_LIMIT_PER_MINUTE,
    backlog: { limit: env.INGEST_BACKLOG_LIMIT, maxWaitMs: env.INGEST_BACKLOG_WAIT_MS },
    autoResolveMinuteMs: env.AUTO_RESOLVE_MINUTE_MS,
    pagingSecondMs: env.PAGING_SECOND_MS,
    processingThread: env.ALERT_PROCESSING_THREAD === "true",
    secretKey: env.SECRET_KEY,
    // Integration URLs are `${externalUrl}/<full_path>/...`: no trailing slash.
    externalUrl: (env.EXTERNAL_URL ?? `http://localhost:${env.PORT || 8080}`).replace(/\/+$/, ""),
    channels: {
      allowLocalNetwork: env.OUTBOUND_ALLOW_LOCAL_NETWORK === "true",
      retry: {
        initialMs: env.CHANNEL_RETRY_INITIAL_MS,
        maxMs: env.CHANNEL_RETRY_MAX_MS,
        forMs: env.CHANNEL_RETRY_FOR_HOURS * 3_600_000,
      },
      minIntervalMs: env.CHANNEL_MIN_INTERVAL_MS,
      storm: { windowMs: env.CHANNEL_STORM_WINDOW_SECONDS * 1000, limit: env.CHANNEL_STORM_LIMIT },
      timeoutMs: env.CHANNEL_TIMEOUT_MS,
    },
    mail: {
      smtpUrl: env.SMTP_URL,
      from: env.MAIL_FROM ?? `Tocsin <tocsin@${new URL(env.EXTERNAL_URL ?? "http://localhost").hostname}>`,
      metricsPort: env.METRICS_PORT,
      storm: { windowMs: env.MAIL_STORM_WINDOW_SECONDS * 1000, limit: env.MAIL_STORM_LIMIT },
      retry: { initialMs: env.MAIL_RETRY_INITIAL_MS, maxMs: env.MAIL_RETRY_MAX_MS, forMs: env.MAIL_RETRY_FOR_HOURS * 3_600_000 },
    },
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
  return storePrefix({ mongoDb: config.mongoUrl ? mongoDbName(config) : undefined, dataDir: config.dataDir });
}
