import { z } from "@tocsin/core";

const SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;

const httpUrl = z.url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" });

/**
 * The OpenTelemetry variables every process reads (standard OTel semantics, the subset Tocsin
 * supports). Tracing is on when an OTLP endpoint is set and OTEL_SDK_DISABLED is not `true`.
 */
export const otelEnv = {
  /** Base URL of an OTLP/HTTP receiver; traces go to `<endpoint>/v1/traces`. Unset: no tracing at all. */
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),
  /** Full URL for traces only (used as is); wins over the base endpoint. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl.optional(),
  /** `key=value,key2=value2` headers sent with every export (e.g. a vendor's API key). Never logged. */
  OTEL_EXPORTER_OTLP_HEADERS: z
    .string()
    .regex(/^\s*[^=,\s]+\s*=[^,]*(,\s*[^=,\s]+\s*=[^,]*)*$/, "expected key=value pairs separated by commas")
    .optional(),
  /** resource `service.name`; default: the process name (gateway, auth-service, ...). */
  OTEL_SERVICE_NAME: z.string().min(1).max(100).optional(),
  OTEL_SDK_DISABLED: z.enum(["true", "false"]).optional(),
  /** Default parentbased_always_on: every trace is kept unless the caller's traceparent says otherwise. */
  OTEL_TRACES_SAMPLER: z.enum(SAMPLERS).default("parentbased_always_on"),
  /** Ratio of the traceidratio samplers, 0 to 1 (default 1). */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
  /** Batch span processor: how long spans wait before they are exported, in ms (default 5000). */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(0).max(600_000).default(5000),
};

type OtelEnv = z.output<z.ZodObject<typeof otelEnv>>;

/** What the tracing of one process needs; undefined when tracing is off. */
export interface TracingConfig {
  /** The full URL spans are POSTed to (OTLP/HTTP, JSON). */
  tracesUrl: string;
  headers: Record<string, string>;
  serviceName: string;
  sampler: (typeof SAMPLERS)[number];
  samplerRatio: number;
  scheduleDelayMs: number;
}

/** The tracing part of a process's configuration (call from its config.ts transform). */
export function tracingConfigOf(env: OtelEnv, processName: string): TracingConfig | undefined {
  if (env.OTEL_SDK_DISABLED === "true") return undefined;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const tracesUrl = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined);
  if (!tracesUrl) return undefined;
  return {
    tracesUrl,
    headers: headersOf(env.OTEL_EXPORTER_OTLP_HEADERS),
    serviceName: env.OTEL_SERVICE_NAME ?? processName,
    sampler: env.OTEL_TRACES_SAMPLER,
    samplerRatio: env.OTEL_TRACES_SAMPLER_ARG ?? 1,
    scheduleDelayMs: env.OTEL_BSP_SCHEDULE_DELAY,
  };
}

function headersOf(value: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of value ? value.split(",") : []) {
    const at = pair.indexOf("=");
    headers[decoded(pair.slice(0, at).trim())] = decoded(pair.slice(at + 1).trim());
  }
  return headers;
}

/** OTEL_EXPORTER_OTLP_HEADERS values are URL-encoded; a malformed escape is kept as written. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
