import { fileURLToPath } from "node:url";
import { commonEnv, parseConfig, portSchema, redisEnv, z } from "@tocsin/core";
import { otelEnv, tracingConfigOf } from "@tocsin/telemetry";

/** web/dist of this checkout (this file is gateway/src/config.ts or gateway/dist/config.js). */
const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL("../../web/dist", import.meta.url));

const schema = z
  .object({
    PORT: portSchema.default(8080),
    EXTERNAL_URL: z.url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" }).optional(),
    /** Where the built web console is (index.html and assets/). */
    CONSOLE_DIR: z.string().min(1).optional(),
    /** Key prefix of the rate-limit counters in Redis (several deployments may share one Redis). */
    RATE_LIMIT_PREFIX: z.string().min(1).max(100).default("tocsin:limits"),
    /**
     * Express `trust proxy`: which hops' X-Forwarded-For to believe for the client address (e.g.
     * `loopback`, `10.0.0.0/8`, `1`). Unset: the TCP peer is the client.
     */
    TRUST_PROXY: z.string().min(1).optional(),
    /**
     * Seconds between the webhook's summary log lines (counts by status); accepted posts and 429s
     * get no line of their own. 0: one access line per webhook request, like every other route.
     */
    WEBHOOK_LOG_SUMMARY_SECONDS: z.coerce.number().int().min(0).max(3600).default(10),
    ...commonEnv,
    ...otelEnv,
    ...redisEnv,
  })
  .transform((env) => ({
    port: env.PORT,
    // Integration URLs are built from this; no trailing slash so that paths can be appended.
    externalUrl: (env.EXTERNAL_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ""),
    logLevel: env.LOG_LEVEL,
    tracing: tracingConfigOf(env, "gateway"),
    authServiceAddr: env.AUTH_SERVICE_ADDR,
    alertServiceAddr: env.ALERT_SERVICE_ADDR,
    settingsServiceAddr: env.SETTINGS_SERVICE_ADDR,
    redisUrl: env.REDIS_URL,
    consoleDir: env.CONSOLE_DIR ?? DEFAULT_CONSOLE_DIR,
    rateLimitPrefix: env.RATE_LIMIT_PREFIX,
    trustProxy: trustProxyOf(env.TRUST_PROXY),
    webhookLogSummarySeconds: env.WEBHOOK_LOG_SUMMARY_SECONDS,
  }));

/** `true`/`false`, a hop count, or addresses/subnets (express's forms); unset → false. */
function trustProxyOf(value: string | undefined): boolean | number | string {
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

export type GatewayConfig = z.output<typeof schema>;

/** Parses the gateway's environment once; a ConfigError names every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): GatewayConfig {
  return parseConfig(schema, env as NodeJS.ProcessEnv);
}
