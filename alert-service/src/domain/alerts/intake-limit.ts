import type { NormalizedAlert } from "./model.js";

/** Where an integration's webhook budget stands after one request (PRODUCT.md section 10). */
export interface RateLimitState {
  limitPerMinute: number;
  /** Requests left in the current burst window (of the budget the request drew on). */
  remaining: number;
  /** Seconds until that window refills. */
  resetSeconds: number;
  /** True when the request was refused: nothing is queued. */
  throttled: boolean;
  /** True when the request was a recovery (it drew on the recoveries' reserve first). */
  recovery: boolean;
  /** Requests one burst window holds (one tenth of the minute's budget). */
  burst: number;
  /** Length of the burst window in seconds. */
  windowSeconds: number;
}

/**
 * The per-integration request budget: a token bucket of `limitPerMinute` per minute with a burst
 * of one tenth, and a separate reserve of one fifth of that for recoveries, which draw on the
 * reserve first and on the main budget when the reserve is spent.
 */
export interface IntakeLimiter {
  take(integrationId: number, limitPerMinute: number, recovery: boolean): Promise<RateLimitState>;
}

/**
 * A request is a recovery when every alert in it ends (an `end_time`, a mapped end time, an
 * Alertmanager `resolved`): an Alertmanager batch that also fires something counts as new alerts.
 */
export function isRecovery(alerts: readonly NormalizedAlert[]): boolean {
  return alerts.length > 0 && alerts.every((a) => a.endedAt !== undefined);
}
