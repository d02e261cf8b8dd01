/** Who acts in a call: set only by the gateway (or an internal service acting for a user). */
interface Principal {
  userId: number;
}

/** What every use-case receives about the call it serves. */
export interface CallContext {
  requestId: string;
  /** Absent for trusted internal calls. */
  principal?: Principal;
  /** Absolute deadline in epoch ms, if any. */
  deadlineMs?: number;
}

/**
 * The same call made as a trusted internal caller: the request id and the caller's deadline are
 * kept (so the downstream call ends when the caller gives up), the principal is dropped.
 */
export function internalContext(ctx: CallContext): CallContext {
  return ctx.deadlineMs === undefined ? { requestId: ctx.requestId } : { requestId: ctx.requestId, deadlineMs: ctx.deadlineMs };
}

/** The same call made on behalf of `userId` (auth-service applies that user's visibility). */
export function actingFor(ctx: CallContext, userId: number | undefined): CallContext {
  return userId === undefined ? internalContext(ctx) : { ...internalContext(ctx), principal: { userId } };
}
