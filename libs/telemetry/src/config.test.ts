import { parseConfig, z } from "@tocsin/core";
import { describe, expect, it } from "vitest";
import { otelEnv, tracingConfigOf } from "./config.js";

const load = (env: Record<string, string>) => tracingConfigOf(parseConfig(z.object(otelEnv), env), "gateway");

describe("tracing configuration (OTEL_* variables)", () => {
  it("is off without an endpoint, or when the SDK is disabled", () => {
    expect(load({})).toBeUndefined();
    expect(load({ OTEL_SERVICE_NAME: "x", OTEL_TRACES_SAMPLER: "always_on" })).toBeUndefined();
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" })).toBeUndefined();
  });

  it("sends to <endpoint>/v1/traces with the process name and the standard defaults", () => {
    expect(load({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })).toEqual({
      tracesUrl: "http://collector:4318/v1/traces",
      headers: {},
      serviceName: "gateway",
      sampler: "parentbased_always_on",
      samplerRatio: 1,
      scheduleDelayMs: 5000,
    });
  });

  it("takes the traces endpoint as is, the service name, sampler, delay and URL-encoded headers", () => {
    const config = load({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example.com/otlp/spans",
      OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=abc%3D%3D, x-tenant = ops",
      OTEL_SERVICE_NAME: "edge-gateway",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      OTEL_BSP_SCHEDULE_DELAY: "50",
    });
    expect(config).toEqual({
      tracesUrl: "https://traces.example.com/otlp/spans",
      headers: { "x-api-key": "abc==", "x-tenant": "ops" },
      serviceName: "edge-gateway",
      sampler: "parentbased_traceidratio",
      samplerRatio: 0.25,
      scheduleDelayMs: 50,
    });
  });

  it("refuses bad values, naming the variable and never echoing a header", () => {
    const bad = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "grpc://collector:4317",
      OTEL_EXPORTER_OTLP_HEADERS: "secret-token-without-a-key",
      OTEL_TRACES_SAMPLER: "sometimes",
      OTEL_TRACES_SAMPLER_ARG: "2",
    };
    let message = "";
    try {
      load(bad);
    } catch (err) {
      message = (err as Error).message;
    }
    for (const name of Object.keys(bad)) expect(message).toContain(name);
    expect(message).not.toContain("secret-token-without-a-key");
  });
});
