import { type Metadata, status } from "@grpc/grpc-js";
import { type CallContext, type TraceParent, toAppError } from "@tocsin/core";
import type { Span, Tracing } from "@tocsin/telemetry";

// Spans of unary calls, per the OpenTelemetry RPC conventions. Called only when tracing is on.

const TRACEPARENT_KEY = "traceparent";
const TRACESTATE_KEY = "tracestate";

/** Status codes that make a server span an error; a client span is one on any non-OK code. */
const SERVER_FAULTS = new Set<number>([
  status.UNKNOWN,
  status.DEADLINE_EXCEEDED,
  status.UNIMPLEMENTED,
  status.INTERNAL,
  status.UNAVAILABLE,
  status.DATA_LOSS,
]);

/** `/auth.v1.AuthService/GetProject` → span name and rpc.* attributes. */
function rpcOf(path: string) {
  const name = path.replace(/^\//, "");
  const slash = name.lastIndexOf("/");
  return {
    name,
    attributes: { "rpc.system": "grpc", "rpc.service": name.slice(0, slash), "rpc.method": name.slice(slash + 1) },
  };
}

/**
 * The client span of one call (retries included); its context goes out as W3C `traceparent`
 * metadata. Its parent: the caller's span (`ctx.trace`), else the span bound to its request id
 * (a job of a batch), else the current span.
 */
export function startClientSpan(tracing: Tracing, path: string, parent: TraceParent | undefined): Span {
  const { name, attributes } = rpcOf(path);
  return tracing.startSpan(name, { kind: "client", attributes, ...(parent ? { parent } : {}) });
}

export function injectTrace(md: Metadata, span: Span): void {
  const carrier = span.carrier();
  md.set(TRACEPARENT_KEY, carrier.traceparent);
  if (carrier.tracestate) md.set(TRACESTATE_KEY, carrier.tracestate);
}

/** The server span of one call, a child of the caller's `traceparent` when the metadata has one. */
export function startServerSpan(tracing: Tracing, path: string, md: Metadata): Span {
  const { name, attributes } = rpcOf(path);
  const first = (key: string) => md.get(key)[0]?.toString();
  const parent = tracing.extract({ traceparent: first(TRACEPARENT_KEY), tracestate: first(TRACESTATE_KEY) });
  return tracing.startSpan(name, { kind: "server", attributes, parent: parent ?? null });
}

export function endRpcSpan(span: Span, side: "client" | "server", code: number): void {
  span.setAttributes({ "rpc.grpc.status_code": code });
  const failed = side === "client" ? code !== status.OK : SERVER_FAULTS.has(code);
  span.end(failed ? (status[code] ?? String(code)) : undefined);
}

/** The W3C fields an item of a micro-batched stream carries (IngestAlertsItem), absent untraced. */
interface ItemTrace {
  traceparent?: string | undefined;
  tracestate?: string | undefined;
}

const UNTRACED: ItemTrace = {};

const statusOf = (err: unknown): number => status[toAppError(err).code];

/**
 * Client side of one item of a micro-batched stream, traced as its own call: a client span (a
 * child of `ctx.trace`, else of the current span) whose context `send` puts into the item, ended
 * when the item's answer comes. Without tracing, `send` gets empty fields and nothing else runs.
 */
export function traceItemCall<T>(
  tracing: Tracing | undefined,
  path: string,
  ctx: CallContext,
  send: (trace: ItemTrace) => Promise<T>,
): Promise<T> {
  return tracing ? tracedItemCall(tracing, path, ctx, send) : send(UNTRACED);
}

async function tracedItemCall<T>(tracing: Tracing, path: string, ctx: CallContext, send: (trace: ItemTrace) => Promise<T>) {
  const span = startClientSpan(tracing, path, ctx.trace ?? tracing.requestSpan(ctx.requestId));
  const carrier = span.carrier();
  try {
    const result = await send(carrier);
    endRpcSpan(span, "client", status.OK);
    return result;
  } catch (err) {
    endRpcSpan(span, "client", statusOf(err));
    throw err;
  }
}

/**
 * Server side of one item: a server span, a child of the item's fields (or a new trace), current
 * while `run` handles the item with it as `ctx.trace`. Without tracing, just `run(ctx)`.
 */
export function traceItem<T>(
  tracing: Tracing | undefined,
  path: string,
  item: ItemTrace,
  ctx: CallContext,
  run: (ctx: CallContext) => Promise<T>,
): Promise<T> {
  return tracing ? tracedItem(tracing, path, item, ctx, run) : run(ctx);
}

async function tracedItem<T>(
  tracing: Tracing,
  path: string,
  item: ItemTrace,
  ctx: CallContext,
  run: (ctx: CallContext) => Promise<T>,
) {
  const { name, attributes } = rpcOf(path);
  const parent = tracing.extract(item) ?? null;
  const span = tracing.startSpan(name, { kind: "server", attributes, parent });
  try {
    const result = await tracing.run(span, () => run({ ...ctx, trace: span.parent }));
    endRpcSpan(span, "server", status.OK);
    return result;
  } catch (err) {
    endRpcSpan(span, "server", statusOf(err));
    throw err;
  }
}
