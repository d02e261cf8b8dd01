import type { Clock, Logger } from "@tocsin/core";
import type { IntegrationStore } from "./ports.js";

/** How often one integration's token_last_used_at is written, at most (per replica). */
const USAGE_WRITE_INTERVAL_MS = 60_000;

/** Records that an integration's key was just used, cheaply: not a write per request. */
export interface UsageRecorder {
  used(projectId: number, integrationId: number): void;
}

/**
 * token_last_used_at kept to the minute: the first use of an integration in a minute writes it
 * (a conditional update that never moves it back); later uses in that minute are only counted in
 * memory. A failed write is logged and retried on the next use after the interval.
 */
export function createUsageRecorder(store: IntegrationStore, clock: Clock, logger: Logger): UsageRecorder {
  const lastWritten = new Map<number, number>();
  return {
    used(projectId, integrationId) {
      const now = clock.now();
      const last = lastWritten.get(integrationId);
      if (last !== undefined && now.getTime() - last < USAGE_WRITE_INTERVAL_MS) return;
      lastWritten.set(integrationId, now.getTime());
      if (lastWritten.size > 100_000) lastWritten.clear();
      store.touch(projectId, integrationId, now).catch((err: unknown) => {
        logger.warn({ err, integrationId }, "could not record token_last_used_at");
      });
    },
  };
}
