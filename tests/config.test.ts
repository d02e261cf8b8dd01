import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadConfig as loadAlertConfig } from "@tocsin/alert-service";
import { loadConfig as loadAuthConfig } from "@tocsin/auth-service";
import { ConfigError, commonEnv, listenEnv, redisEnv, storageEnv } from "@tocsin/core";
import { loadConfig as loadGatewayConfig } from "@tocsin/gateway";
import { loadConfig as loadSettingsConfig } from "@tocsin/settings-service";
import { otelEnv } from "@tocsin/telemetry";
import { describe, expect, it } from "vitest";

/**
 * deploy/env/<process>.env.example lists every variable its process reads (STYLE.md): the
 * examples parse with the process's own loadConfig, and a bad configuration fails at once with
 * one message that names every bad variable and echoes no value.
 */
const root = fileURLToPath(new URL("..", import.meta.url));

type Env = Record<string, string>;
const processes = [
  { name: "gateway", dir: "gateway", load: loadGatewayConfig },
  { name: "auth-service", dir: "auth-service", load: loadAuthConfig },
  { name: "settings-service", dir: "settings-service", load: loadSettingsConfig },
  { name: "alert-service", dir: "alert-service", load: loadAlertConfig },
] as const;

/** `NAME=value` lines; with `withOptional`, also the commented `# NAME=value` examples. */
function parseEnvFile(text: string, withOptional: boolean): Env {
  const env: Env = {};
  for (const line of text.split("\n")) {
    const m = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (!m || (m[1] && !withOptional)) continue;
    env[m[2] as string] = (m[3] as string).trim();
  }
  return env;
}

/** The variables a process's config.ts reads: its own schema keys plus the shared groups it spreads. */
function variablesRead(dir: string): string[] {
  const source = readFileSync(`${root}/${dir}/src/config.ts`, "utf8");
  const names = new Set<string>();
  const schemaBody = source.slice(source.indexOf("z.object") > -1 ? source.indexOf("z.object") : 0);
  for (const m of schemaBody.matchAll(/^\s*([A-Z][A-Z0-9_]+):/gm)) names.add(m[1] as string);
  const groups = { commonEnv, listenEnv, storageEnv, redisEnv, otelEnv };
  for (const [group, vars] of Object.entries(groups)) {
    if (source.includes(`...${group}`)) for (const name of Object.keys(vars)) names.add(name);
  }
  return [...names].sort();
}

function example(name: string): string {
  return readFileSync(`${root}/deploy/env/${name}.env.example`, "utf8");
}

describe.each(processes)("deploy/env/$name.env.example", ({ name, dir, load }) => {
  it("documents exactly the variables the process reads", () => {
    const documented = Object.keys(parseEnvFile(example(name), true)).sort();
    expect(variablesRead(dir).length).toBeGreaterThan(3);
    expect(documented).toEqual(variablesRead(dir));
  });

  it("parses with the process's loadConfig, as is and with every optional line set", () => {
    expect(() => load(parseEnvFile(example(name), false))).not.toThrow();
    expect(() => load(parseEnvFile(example(name), true))).not.toThrow();
  });

  it("the empty environment is a valid configuration (embedded defaults)", () => {
    expect(() => load({})).not.toThrow();
  });
});

const SECRETS = [
  "s3cr3t-mongo-password",
  "r3dis-password-xyz",
  "admin-token-that-must-not-leak",
  "secret-key-that-must-not-leak-0123",
];

/** Several bad variables at once; values carry secrets that must never be echoed. */
const badCommon: Env = {
  LOG_LEVEL: "chatty",
  AUTH_SERVICE_ADDR: "auth-without-port",
  ALERT_SERVICE_ADDR: "127.0.0.1:notaport",
};
const bad: Record<(typeof processes)[number]["name"], Env> = {
  gateway: { ...badCommon, PORT: "99999", EXTERNAL_URL: "ftp://x", REDIS_URL: `http://:${SECRETS[1]}@cache:6379` },
  "auth-service": {
    ...badCommon,
    MONGO_URL: `http://admin:${SECRETS[0]}@db:27017`,
    ADMIN_TOKEN: "short",
    SECRET_KEY: "short",
    REDIS_URL: `http://:${SECRETS[1]}@cache:6379`,
    EVENTS_PREFIX: "has spaces",
  },
  "settings-service": { ...badCommon, MONGO_URL: `http://admin:${SECRETS[0]}@db:27017`, MONGO_DB: "bad name!" },
  "alert-service": {
    ...badCommon,
    MONGO_URL: `http://admin:${SECRETS[0]}@db:27017`,
    REDIS_URL: `http://:${SECRETS[1]}@cache:6379`,
    EXTERNAL_URL: "not a url",
  },
};

describe.each(processes)("$name with a bad configuration", ({ name, load }) => {
  it("fails with one message naming every bad variable and echoing no value", () => {
    const env = { ...bad[name], ...(name === "auth-service" ? {} : { ADMIN_TOKEN: SECRETS[2], SECRET_KEY: SECRETS[3] }) };
    let error: unknown;
    try {
      load(env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const variable of Object.keys(bad[name])) expect(message).toContain(variable);
    for (const secret of SECRETS) expect(message).not.toContain(secret);
    for (const value of Object.values(bad[name])) expect(message).not.toContain(value);
  });
});
