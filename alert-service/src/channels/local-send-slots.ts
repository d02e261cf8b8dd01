import type { SendSlots } from "../domain/channels/ports.js";

/** Send slots in this process's memory: the embedded setup, where one process sends everything. */
export function createLocalSendSlots(now: () => number = Date.now): SendSlots {
  const next = new Map<number, number>();
  return {
    async reserve(destinationId, intervalMs) {
      const at = now();
      const due = next.get(destinationId) ?? 0;
      next.set(destinationId, Math.max(at, due) + intervalMs);
      return Math.max(0, due - at);
    },
  };
}
