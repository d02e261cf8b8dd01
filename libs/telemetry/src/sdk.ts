import { AsyncLocalStorage } from "node:async_hooks";
import {
  isSpanContextValid,
  type Span as OtelSpan,
  SpanKind as OtelSpanKind,
  ROOT_CONTEXT,
  type SpanContext,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { parseTraceParent, TraceState } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import type { TraceParent } from "@tocsin/core";
import type { TracingConfig } from "./config.js";
import type { Span, SpanKind, Tracing } from "./tracing.js";

// Loaded by startTracing only when tracing is on: nothing here runs, or is even imported, otherwise.

const KINDS: Record<SpanKind, OtelSpanKind> = {
  server: OtelSpanKind.SERVER,
  client: OtelSpanKind.CLIENT,
  producer: OtelSpanKind.PRODUCER,
  consumer: OtelSpanKind.CONSUMER,
  internal: OtelSpanKind.INTERNAL,
};

/**
 * The current span of an async context (and, in a batch of jobs, each job's span by request id);
 * one per process, shared by the services it hosts (tests).
 */
const currentSpan = new AsyncLocalStorage<{ span: TraceParent; requests?: Map<string, TraceParent> }>();

function samplerOf(config: TracingConfig): Sampler {
  const ratio = new TraceIdRatioBasedSampler(config.samplerRatio);
  switch (config.sampler) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return ratio;
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: ratio });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

function toSpanContext(parent: TraceParent): SpanContext {
  const context: SpanContext = { traceId: parent.traceId, spanId: parent.spanId, traceFlags: parent.traceFlags, isRemote: true };
  if (parent.traceState) context.traceState = new TraceState(parent.traceState);
  return context;
}

function fromSpanContext(context: SpanContext): TraceParent {
  const parent: TraceParent = { traceId: context.traceId, spanId: context.spanId, traceFlags: context.traceFlags };
  const state = context.traceState?.serialize();
  if (state) parent.traceState = state;
  return parent;
}

function wrap(span: OtelSpan): Span {
  const parent = fromSpanContext(span.spanContext());
  let ended = false;
  return {
    parent,
    carrier() {
      const flags = (parent.traceFlags & 0xff).toString(16).padStart(2, "0");
      const traceparent = `00-${parent.traceId}-${parent.spanId}-${flags}`;
      return parent.traceState ? { traceparent, tracestate: parent.traceState } : { traceparent };
    },
    setAttributes(attributes) {
      span.setAttributes(attributes);
    },
    updateName(name) {
      span.updateName(name);
    },
    end(failure) {
      if (ended) return;
      ended = true;
      if (failure !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
      span.end();
    },
  };
}

/** One process's tracer provider, batch processor and OTLP/HTTP (JSON) exporter. */
export function createTracing(config: TracingConfig): Tracing {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName }),
    sampler: samplerOf(config),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: config.tracesUrl, headers: config.headers }),
        scheduledDelayMillis: config.scheduleDelayMs,
      }),
    ],
  });
  const tracer = provider.getTracer("tocsin");
  let stopping: Promise<void> | undefined;
  return {
    startSpan(name, { kind, attributes, parent }) {
      const from = parent === undefined ? currentSpan.getStore()?.span : parent;
      const context = from ? trace.setSpanContext(ROOT_CONTEXT, toSpanContext(from)) : ROOT_CONTEXT;
      return wrap(tracer.startSpan(name, { kind: KINDS[kind], ...(attributes ? { attributes } : {}) }, context));
    },
    run(span, fn) {
      return currentSpan.run({ span: span.parent }, fn);
    },
    runBatch(jobs, fn) {
      const requests = new Map<string, TraceParent>();
      for (const job of jobs)
        if (job.requestId !== undefined && !requests.has(job.requestId)) requests.set(job.requestId, job.span.parent);
      const first = jobs[0];
      return first ? currentSpan.run({ span: first.span.parent, requests }, fn) : fn();
    },
    current() {
      return currentSpan.getStore()?.span;
    },
    requestSpan(requestId) {
      return currentSpan.getStore()?.requests?.get(requestId);
    },
    extract(carrier) {
      if (typeof carrier?.traceparent !== "string") return undefined;
      const context = parseTraceParent(carrier.traceparent);
      if (!context || !isSpanContextValid(context)) return undefined;
      if (typeof carrier.tracestate === "string" && carrier.tracestate.length <= 512) {
        context.traceState = new TraceState(carrier.tracestate);
      }
      return fromSpanContext(context);
    },
    shutdown() {
      stopping ??= provider.shutdown().catch(() => undefined);
      return stopping;
    },
  };
}
