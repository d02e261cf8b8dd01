import {
  type CallOptions,
  Client,
  type ClientDuplexStream,
  type ClientOptions,
  type ClientReadableStream,
  credentials,
  type ServiceError,
  status,
} from "@grpc/grpc-js";
import type { AppError, CallContext } from "@tocsin/core";
import type { Span, Tracing } from "@tocsin/telemetry";
import { contextToMetadata } from "./metadata.js";
import { fromGrpcError } from "./status.js";
import { channelTarget } from "./target.js";
import { endRpcSpan, injectTrace, startClientSpan } from "./tracing.js";
import type { BidiKeys, ReqOf, ResOf, ServiceDef, StreamKeys, UnaryKeys } from "./types.js";

interface CallOpts {
  /** Overall deadline of the call, retries included; defaults to the client's. Bounded by `ctx.deadlineMs` when set. */
  timeoutMs?: number;
}

export type PromiseClient<D extends ServiceDef> = {
  [K in UnaryKeys<D>]: (req: ReqOf<D[K]>, ctx: CallContext, opts?: CallOpts) => Promise<ResOf<D[K]>>;
} & {
  /** Opens a server stream; the caller consumes `data`/`error`/`end` events. */
  stream<K extends StreamKeys<D>>(method: K, req: ReqOf<D[K]>, ctx: CallContext): ClientReadableStream<ResOf<D[K]>>;
  /**
   * Opens a bidirectional stream (no deadline: it lives until either side ends it). On a balanced
   * channel it is pinned to the replica picked when it opens.
   */
  duplex<K extends BidiKeys<D>>(method: K, ctx: CallContext): ClientDuplexStream<ReqOf<D[K]>, ResOf<D[K]>>;
  /** Resolves once the channel is connected, or rejects after `timeoutMs`. */
  waitForReady(timeoutMs: number): Promise<void>;
  close(): void;
};

export interface ClientConfig {
  /** Name used in transport error reasons, e.g. `auth` → AUTH_UNAVAILABLE. */
  target: string;
  /** `host:port`, a comma-separated list of replicas, or `dns:///host:port` (see channelTarget). */
  address: string;
  /** Default deadline of a call, its retries included. */
  timeoutMs?: number;
  /** Extra attempts for idempotent reads that fail with UNAVAILABLE. */
  readRetries?: number;
  /** The process's tracing, when on: one client span per call, its context sent as `traceparent`. */
  tracing?: Tracing;
}

// Reads are safe to retry; the method name says which calls are reads.
const IDEMPOTENT_READ = /^(get|list|batchGet|resolve|authenticate)/;

/**
 * A promise-based client over a ts-proto grpc-js service definition. Every call carries a
 * deadline and the context's request id and principal; failures become AppErrors here and
 * nowhere else.
 */
export function createClient<D extends ServiceDef>(
  definition: D,
  config: ClientConfig,
  options: Partial<ClientOptions> = {},
): PromiseClient<D> {
  const { target, options: balancing } = channelTarget(config.address);
  const client = new Client(target, credentials.createInsecure(), {
    "grpc.keepalive_time_ms": 30_000,
    "grpc.max_receive_message_length": 8 * 1024 * 1024,
    ...balancing,
    ...options,
  });
  const defaultTimeout = config.timeoutMs ?? 5000;
  const retries = config.readRetries ?? 2;
  const { tracing } = config;

  /** The call's one deadline: the client's timeout, bounded by the caller's own deadline. */
  const deadlineFor = (ctx: CallContext, opts?: CallOpts) => {
    const own = Date.now() + (opts?.timeoutMs ?? defaultTimeout);
    return new Date(ctx.deadlineMs ? Math.min(own, ctx.deadlineMs) : own);
  };

  const once = (name: string, req: unknown, ctx: CallContext, deadline: Date, span: Span | undefined) =>
    new Promise<unknown>((resolve, reject) => {
      const def = definition[name] as D[string];
      const callOptions: CallOptions = { deadline };
      const metadata = contextToMetadata(ctx);
      if (span) injectTrace(metadata, span);
      client.makeUnaryRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize,
        req,
        metadata,
        callOptions,
        (err: ServiceError | null, res?: unknown) => (err ? reject(err) : resolve(res)),
      );
    });

  // Every attempt shares the deadline fixed when the call began: retries never outlive the caller.
  const call = async (name: string, req: unknown, ctx: CallContext, opts?: CallOpts) => {
    const deadline = deadlineFor(ctx, opts);
    const attempts = IDEMPOTENT_READ.test(name) ? retries + 1 : 1;
    const span = tracing
      ? startClientSpan(tracing, (definition[name] as D[string]).path, ctx.trace ?? tracing.requestSpan(ctx.requestId))
      : undefined;
    let last: ServiceError | undefined;
    for (let i = 0; i < attempts; i++) {
      try {
        const res = await once(name, req, ctx, deadline, span);
        if (span) endRpcSpan(span, "client", status.OK);
        return res;
      } catch (err) {
        last = err as ServiceError;
        const pauseMs = 50 * 2 ** i;
        if (last.code !== status.UNAVAILABLE || i === attempts - 1 || Date.now() + pauseMs >= deadline.getTime()) break;
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    }
    if (span) endRpcSpan(span, "client", last?.code ?? status.UNKNOWN);
    throw fromGrpcError(last as ServiceError, config.target) satisfies AppError;
  };

  const api: Record<string, unknown> = {
    stream(method: string, req: unknown, ctx: CallContext) {
      const def = definition[method] as D[string];
      return client.makeServerStreamRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize,
        req,
        contextToMetadata(ctx),
        {},
      );
    },
    duplex(method: string, ctx: CallContext) {
      const def = definition[method] as D[string];
      return client.makeBidiStreamRequest(def.path, def.requestSerialize, def.responseDeserialize, contextToMetadata(ctx), {});
    },
    waitForReady(timeoutMs: number) {
      return new Promise<void>((resolve, reject) =>
        client.waitForReady(Date.now() + timeoutMs, (err) => (err ? reject(err) : resolve())),
      );
    },
    close() {
      client.close();
    },
  };
  for (const [name, def] of Object.entries(definition)) {
    if (!def.responseStream) api[name] = (req: unknown, ctx: CallContext, opts?: CallOpts) => call(name, req, ctx, opts);
  }
  return api as PromiseClient<D>;
}
