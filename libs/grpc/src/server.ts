import {
  type handleBidiStreamingCall,
  type handleServerStreamingCall,
  type handleUnaryCall,
  Server,
  ServerCredentials,
  type ServerDuplexStream,
  type ServerUnaryCall,
  type ServerWritableStream,
  status,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { ReflectionService } from "@grpc/reflection";
import { type CallContext, type Logger, toAppError, uuidV7, withTimeout } from "@tocsin/core";
import { loadPackageDefinition } from "@tocsin/proto";
import type { Tracing } from "@tocsin/telemetry";
import { HealthImplementation } from "grpc-health-check";
import { metadataToContext } from "./metadata.js";
import { toGrpcError } from "./status.js";
import { endRpcSpan, startServerSpan } from "./tracing.js";
import type { ReqOf, ResOf, ServiceDef } from "./types.js";

/** What a handler learns about its call, beyond the request message. */
export interface ServerCallContext extends CallContext {
  logger: Logger;
  /** Whether the client has cancelled or the deadline has passed (streams only). */
  cancelled: () => boolean;
}

export interface ServerStream<T> {
  write(message: T): boolean;
  end(): void;
  /** Registers a listener for client cancellation. */
  onCancel(listener: () => void): void;
}

/** Both directions of a bidirectional stream, and the server's shutdown. */
export interface ServerDuplex<Req, Res> extends ServerStream<Res> {
  /** Every message the client sends, in order. */
  onMessage(listener: (message: Req) => void): void;
  /** The client has half-closed (it sends nothing more). */
  onEnd(listener: () => void): void;
  /**
   * The server is shutting down: the handler stops taking new work, finishes what it holds and
   * resolves (graceful shutdown waits for it, bounded).
   */
  onDrain(listener: () => void): void;
}

/**
 * The use-case side of a service: plain async functions, no grpc-js types. A bidirectional
 * stream's handler resolves when it is done; the stream then ends with OK (or with its error).
 */
export type ServiceHandlers<D extends ServiceDef> = {
  [K in keyof D]: D[K] extends { requestStream: true; responseStream: true }
    ? (ctx: ServerCallContext, stream: ServerDuplex<ReqOf<D[K]>, ResOf<D[K]>>) => Promise<void>
    : D[K] extends { responseStream: true }
      ? (req: ReqOf<D[K]>, ctx: ServerCallContext, stream: ServerStream<ResOf<D[K]>>) => Promise<void>
      : (req: ReqOf<D[K]>, ctx: ServerCallContext) => Promise<ResOf<D[K]>>;
};

export interface GrpcServerOptions {
  logger: Logger;
  /** Proto files (relative to proto/) served by reflection. */
  protoFiles: string[];
  /** Fully-qualified service names, for per-service health status. */
  serviceNames: string[];
  /** The process's tracing, when on: one server span per unary call (health and streams have none). */
  tracing?: Tracing;
}

export interface GrpcServer {
  add<D extends ServiceDef>(definition: D, handlers: ServiceHandlers<D>): void;
  /** Binds and starts; resolves to the bound port (useful with port 0). */
  listen(address: string): Promise<number>;
  /** Marks the services SERVING once their dependencies answer. */
  setServing(serving: boolean): void;
  /** NOT_SERVING, then a bounded graceful shutdown, then a forced one. */
  shutdown(timeoutMs?: number): Promise<void>;
}

function contextOf(
  call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown> | ServerDuplexStream<unknown, unknown>,
  logger: Logger,
  method: string,
) {
  const base = metadataToContext(call.metadata, uuidV7);
  const deadline = call.getDeadline();
  const deadlineMs = deadline instanceof Date ? deadline.getTime() : Number.isFinite(deadline) ? Number(deadline) : undefined;
  const ctx: ServerCallContext = {
    ...base,
    logger: logger.child({ requestId: base.requestId, rpc: method }),
    cancelled: () => call.cancelled,
  };
  if (deadlineMs !== undefined && deadlineMs !== Number.POSITIVE_INFINITY) ctx.deadlineMs = deadlineMs;
  return ctx;
}

function logFailure(ctx: ServerCallContext, err: unknown) {
  const appErr = toAppError(err);
  if (appErr.code === "INTERNAL" || appErr.code === "UNKNOWN" || appErr.code === "DATA_LOSS") {
    ctx.logger.error({ err: appErr.cause ?? err }, "rpc failed");
  } else {
    ctx.logger.debug({ code: appErr.code, reason: appErr.reason }, "rpc rejected");
  }
  return appErr;
}

function wrapUnary(
  logger: Logger,
  method: string,
  fn: (req: unknown, ctx: ServerCallContext) => Promise<unknown>,
  tracing: Tracing | undefined,
): handleUnaryCall<unknown, unknown> {
  if (tracing) return wrapTracedUnary(logger, method, fn, tracing);
  return (call, callback) => {
    const ctx = contextOf(call, logger, method);
    fn(call.request, ctx).then(
      (res) => callback(null, res),
      (err: unknown) => callback(toGrpcError(logFailure(ctx, err))),
    );
  };
}

/** wrapUnary with a server span: the handler, and everything it awaits, runs in that span. */
function wrapTracedUnary(
  logger: Logger,
  method: string,
  fn: (req: unknown, ctx: ServerCallContext) => Promise<unknown>,
  tracing: Tracing,
): handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const ctx = contextOf(call, logger, method);
    const span = startServerSpan(tracing, method, call.metadata);
    ctx.trace = span.parent;
    tracing
      .run(span, () => fn(call.request, ctx))
      .then(
        (res) => {
          endRpcSpan(span, "server", status.OK);
          callback(null, res);
        },
        (err: unknown) => {
          const grpcError = toGrpcError(logFailure(ctx, err));
          endRpcSpan(span, "server", grpcError.code);
          callback(grpcError);
        },
      );
  };
}

function wrapStream(
  logger: Logger,
  method: string,
  fn: (req: unknown, ctx: ServerCallContext, stream: ServerStream<unknown>) => Promise<void>,
): handleServerStreamingCall<unknown, unknown> {
  return (call) => {
    const ctx = contextOf(call, logger, method);
    const stream: ServerStream<unknown> = {
      write: (m) => call.write(m),
      end: () => call.end(),
      onCancel: (listener) => call.on("cancelled", listener),
    };
    fn(call.request, ctx, stream).catch((err: unknown) => {
      // grpc-js sends a stream's error status on "error" (destroy() would leave the call open).
      if (!call.cancelled)
        call.emit("error", Object.assign(new Error(toAppError(err).message), toGrpcError(logFailure(ctx, err))));
    });
  };
}

type DrainListeners = Set<() => void>;

function wrapBidi(
  logger: Logger,
  method: string,
  draining: DrainListeners,
  fn: (ctx: ServerCallContext, stream: ServerDuplex<unknown, unknown>) => Promise<void>,
): handleBidiStreamingCall<unknown, unknown> {
  return (call) => {
    const ctx = contextOf(call, logger, method);
    let onDrain: (() => void) | undefined;
    const stream: ServerDuplex<unknown, unknown> = {
      write: (m) => call.write(m),
      end: () => call.end(),
      onCancel: (listener) => call.on("cancelled", listener),
      onMessage: (listener) => call.on("data", listener),
      onEnd: (listener) => call.on("end", listener),
      onDrain(listener) {
        onDrain = listener;
        draining.add(listener);
      },
    };
    const done = () => {
      if (onDrain) draining.delete(onDrain);
    };
    fn(ctx, stream).then(
      () => {
        done();
        if (!call.cancelled) call.end();
      },
      (err: unknown) => {
        done();
        // As for server streams: the error status goes out on "error" (destroy() would leave the call open).
        if (!call.cancelled)
          call.emit("error", Object.assign(new Error(toAppError(err).message), toGrpcError(logFailure(ctx, err))));
      },
    );
  };
}

/**
 * The address other processes reach a server on once it is bound: the configured host (a
 * wildcard host becomes loopback) with the bound port (which differs from the configured one
 * with port 0).
 */
export function connectableAddress(configured: string, port: number): string {
  const host = configured.slice(0, configured.lastIndexOf(":"));
  const reachable = host === "0.0.0.0" || host === "" ? "127.0.0.1" : host === "[::]" ? "[::1]" : host;
  return `${reachable}:${port}`;
}

export function createGrpcServer(options: GrpcServerOptions): GrpcServer {
  const { logger } = options;
  const server = new Server({ "grpc.max_receive_message_length": 8 * 1024 * 1024 });
  const statusMap: Record<string, "SERVING" | "NOT_SERVING"> = { "": "NOT_SERVING" };
  for (const name of options.serviceNames) statusMap[name] = "NOT_SERVING";
  const health = new HealthImplementation(statusMap);
  const draining: DrainListeners = new Set();
  health.addToServer(server);
  new ReflectionService(loadPackageDefinition(options.protoFiles)).addToServer(server);

  return {
    add(definition, handlers) {
      const impl: UntypedServiceImplementation = {};
      for (const [name, def] of Object.entries(definition)) {
        const fn = handlers[name as keyof typeof handlers] as unknown;
        if (typeof fn !== "function") throw new Error(`handler missing for ${def.path}`);
        impl[name] =
          def.requestStream && def.responseStream
            ? wrapBidi(logger, def.path, draining, fn as Parameters<typeof wrapBidi>[3])
            : def.responseStream
              ? wrapStream(logger, def.path, fn as Parameters<typeof wrapStream>[2])
              : wrapUnary(logger, def.path, fn as Parameters<typeof wrapUnary>[2], options.tracing);
      }
      server.addService(definition, impl);
    },
    listen(address) {
      return new Promise((resolve, reject) => {
        server.bindAsync(address, ServerCredentials.createInsecure(), (err, port) => {
          if (err) reject(err);
          else resolve(port);
        });
      });
    },
    setServing(serving) {
      const s = serving ? "SERVING" : "NOT_SERVING";
      for (const name of Object.keys(statusMap)) health.setStatus(name, s);
    },
    async shutdown(timeoutMs = 5000) {
      for (const name of Object.keys(statusMap)) health.setStatus(name, "NOT_SERVING");
      // Long-lived bidirectional streams finish what they hold and end, so that tryShutdown can.
      for (const drain of [...draining]) drain();
      draining.clear();
      try {
        await withTimeout(
          new Promise<void>((resolve, reject) => server.tryShutdown((err) => (err ? reject(err) : resolve()))),
          timeoutMs,
        );
      } catch {
        server.forceShutdown();
      }
    },
  };
}
