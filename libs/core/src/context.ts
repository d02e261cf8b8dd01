/** Who acts in a call: set only by the gateway (or an internal service acting for a user). */
interface Principal {
  userId: number;
}

/**
 * The span a call runs in, as W3C trace context ids. Set only by the tracing adapters (gateway,
 * gRPC server, queue runner) when tracing is on; everything else passes it along untouched.
 */
export interface TraceParent {
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState?: string;
}

/** What every use-case receives about the call it serves. */
export interface CallContext {
  requestId: string;
  /** Absent for trusted internal calls. */
  principal?: Principal;
  /** Absolute deadline in epoch ms, if any. */
  deadlineMs?: number;
  /** The caller's span (absent when tracing is off): downstream calls become its children. */
  trace?: TraceParent;
}

/**
 * The same call made as a trusted internal caller: the request id, the caller's deadline (so the
 * downstream call ends when the caller gives up) and its span are kept, the principal is dropped.
 */
export function internalContext(ctx: CallContext): CallContext {
  const internal: CallContext = { requestId: ctx.requestId };
  if (ctx.deadlineMs !== undefined) internal.deadlineMs = ctx.deadlineMs;
  if (ctx.trace !== undefined) internal.trace = ctx.trace;
  return internal;
}

/** The same call made on behalf of `userId` (auth-service applies that user's visibility). */
export function actingFor(ctx: CallContext, userId: number | undefined): CallContext {
  return userId === undefined ? internalContext(ctx) : { ...internalContext(ctx), principal: { userId } };
}
