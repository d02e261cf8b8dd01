import { AppError, type TraceParent } from "@tocsin/core";
import type { TracingConfig } from "./config.js";

export type SpanKind = "server" | "client" | "producer" | "consumer" | "internal";
type SpanAttributes = Record<string, string | number | boolean>;

/** W3C trace context as it travels in HTTP headers, gRPC metadata and job data. */
interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** One started span. Attributes hold names, ids and codes only: never keys, tokens or payloads. */
export interface Span {
  /** This span as the parent of what it calls (CallContext.trace). */
  readonly parent: TraceParent;
  /** This span as W3C headers, for another process or a job. */
  carrier(): TraceCarrier;
  setAttributes(attributes: SpanAttributes): void;
  updateName(name: string): void;
  /** Ends the span; `failure` (a short reason, no payload) marks it as an error. Later calls do nothing. */
  end(failure?: string): void;
}

interface SpanOptions {
  kind: SpanKind;
  attributes?: SpanAttributes;
  /**
   * The parent; default: the span current in this async context (`run`), else a new trace.
   * `null` starts a new trace whatever is current (a request or job that came with no context).
   */
  parent?: TraceParent | null;
}

/** One process's tracing (its own tracer provider and exporter); absent when tracing is off. */
export interface Tracing {
  startSpan(name: string, options: SpanOptions): Span;
  /** Runs `fn` with `span` as the current span of everything it awaits (AsyncLocalStorage). */
  run<T>(span: Span, fn: () => T): T;
  /** The current span of this async context, if any. */
  current(): TraceParent | undefined;
  /**
   * Runs a batch of jobs (one async context for all of them): the first job's span is current,
   * and `requestSpan(id)` answers each job's span by its request id, so that what a job calls or
   * enqueues for its own request joins that request's trace.
   */
  runBatch<T>(jobs: Array<{ requestId: string | undefined; span: Span }>, fn: () => T): T;
  /** Inside `runBatch`: the span of the batch's job for `requestId`, if any. */
  requestSpan(requestId: string): TraceParent | undefined;
  /** Reads a W3C carrier (invalid or absent → undefined, the span starts a new trace). */
  extract(carrier: { traceparent?: unknown; tracestate?: unknown } | undefined): TraceParent | undefined;
  /** Exports what is buffered and stops; idempotent. */
  shutdown(): Promise<void>;
}

/** What a failed span records: an error's reason or name, never its message (it may quote input). */
export function failureOf(err: unknown): string {
  if (AppError.is(err)) return err.reason;
  return err instanceof Error ? err.name : "error";
}

let sdkLoaded = false;

/**
 * Starts tracing for one process when its configuration asks for it. The OpenTelemetry SDK is
 * imported here, on demand: with tracing off it is never loaded, and every instrumented boundary
 * checks `tracing` for undefined before doing any span work.
 */
export async function startTracing(config: TracingConfig | undefined): Promise<Tracing | undefined> {
  if (!config) return undefined;
  const { createTracing } = await import("./sdk.js");
  sdkLoaded = true;
  return createTracing(config);
}

/** Whether this process has loaded the OpenTelemetry SDK (tests: not when tracing is off). */
export function tracingLoaded(): boolean {
  return sdkLoaded;
}
