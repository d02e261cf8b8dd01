import { commonEnv, parseConfig, storageEnv, z } from "@tocsin/core";

const schema = z.object({ ...commonEnv, ...storageEnv });

export type SettingsConfig = z.output<typeof schema>;

/** Parses the environment once; one ConfigError names every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): SettingsConfig {
  return parseConfig(schema, env);
}
