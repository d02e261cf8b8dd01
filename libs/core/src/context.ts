/** Who acts in a call: set only by the gateway (or an internal service acting for a user). */
export interface Principal {
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

export function systemContext(requestId: string): CallContext {
  return { requestId };
}
