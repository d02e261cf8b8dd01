import { fileURLToPath } from "node:url";
import { ConfigError } from "@tocsin/core";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";

describe("gateway configuration", () => {
  it("has PRODUCT.md's defaults", () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      externalUrl: "http://localhost:8080",
      logLevel: "info",
      authServiceAddr: "127.0.0.1:50051",
      alertServiceAddr: "127.0.0.1:50052",
      settingsServiceAddr: "127.0.0.1:50053",
      redisUrl: undefined,
      consoleDir: fileURLToPath(new URL("../../web/dist", import.meta.url)),
      rateLimitPrefix: "tocsin:limits",
      trustProxy: false,
      webhookLogSummarySeconds: 10,
    });
    expect(loadConfig({ CONSOLE_DIR: "/srv/console" }).consoleDir).toBe("/srv/console");
  });

  it("reads TRUST_PROXY in express's forms", () => {
    expect(loadConfig({ TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: "2" }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: "loopback, 10.0.0.0/8" }).trustProxy).toBe("loopback, 10.0.0.0/8");
  });

  it("reads WEBHOOK_LOG_SUMMARY_SECONDS: 0 (a line per request) to 3600", () => {
    expect(loadConfig({ WEBHOOK_LOG_SUMMARY_SECONDS: "0" }).webhookLogSummarySeconds).toBe(0);
    expect(loadConfig({ WEBHOOK_LOG_SUMMARY_SECONDS: "60" }).webhookLogSummarySeconds).toBe(60);
    for (const bad of ["-1", "3601", "1.5", "often"])
      expect(() => loadConfig({ WEBHOOK_LOG_SUMMARY_SECONDS: bad })).toThrow(ConfigError);
  });

  it("derives EXTERNAL_URL from PORT and drops a trailing slash", () => {
    expect(loadConfig({ PORT: "9090" }).externalUrl).toBe("http://localhost:9090");
    expect(loadConfig({ EXTERNAL_URL: "https://alerts.example.com/" }).externalUrl).toBe("https://alerts.example.com");
  });

  it("names every bad variable at once, without echoing values", () => {
    let error: unknown;
    try {
      loadConfig({ PORT: "eighty", EXTERNAL_URL: "ftp://x", ALERT_SERVICE_ADDR: "nowhere", REDIS_URL: "http://secret@x" });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ["PORT", "EXTERNAL_URL", "ALERT_SERVICE_ADDR", "REDIS_URL"]) expect(message).toContain(name);
    expect(message).not.toContain("secret");
  });
});
