import { commonEnv, listenEnv, parseConfig, requireListenAddr, storageEnv, z } from "@tocsin/core";
import { otelEnv, tracingConfigOf } from "@tocsin/telemetry";

const schema = z
  .object({ ...commonEnv, ...listenEnv, ...storageEnv, ...otelEnv })
  .superRefine(requireListenAddr("SETTINGS_SERVICE_ADDR"))
  .transform((env) => ({
    logLevel: env.LOG_LEVEL,
    tracing: tracingConfigOf(env, "settings-service"),
    listenAddr: env.LISTEN_ADDR ?? env.SETTINGS_SERVICE_ADDR,
    authServiceAddr: env.AUTH_SERVICE_ADDR,
    dataDir: env.DATA_DIR,
    mongoUrl: env.MONGO_URL,
    mongoDb: env.MONGO_DB,
  }));

export type SettingsConfig = z.output<typeof schema>;

/** Parses the environment once; one ConfigError names every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): SettingsConfig {
  return parseConfig(schema, env);
}
