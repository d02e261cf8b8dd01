import type { JobResult } from "./queue.js";

/**
 * `waitFor` on BullMQ's lanes. Ends are announced on the queue's done channel as a JSON array of
 * job ids, without results (bullmq-queue.ts): a waiter registers, subscribes, reads the end from
 * Redis, and on hearing its id reads it again. A version before 2026-11-29 announced
 * `{ id, result }` objects (one, or a batch's array): their ids wake waiters the same way.
 */
export class EndWaiters {
  /** Per job id: the waits to wake when its end is announced. */
  private readonly waiters = new Map<string, Set<() => void>>();

  /** `listen`: resolves once subscribed to the done channel (or once that failed: reads still answer). */
  constructor(private readonly listen: () => Promise<void>) {}

  /** An announcement heard on the done channel: the waiters of its ids wake. */
  hear(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      const id = typeof item === "string" ? item : (item as { id?: unknown } | null)?.id;
      if (typeof id === "string") for (const wake of this.waiters.get(id) ?? []) wake();
    }
  }

  /**
   * The end of job `id` as `read` finds it, read again each time its id is announced, until
   * `timeoutMs` or until `signal` aborts (then undefined).
   */
  async waitFor(
    id: string,
    timeoutMs: number,
    read: () => Promise<JobResult | undefined>,
    signal?: AbortSignal,
  ): Promise<JobResult | undefined> {
    if (timeoutMs <= 0 || signal?.aborted) return read();
    let timedOut = false;
    let wake: () => void = () => {};
    let woken = new Promise<void>((r) => {
      wake = r;
    });
    const waker = () => wake();
    const set = this.waiters.get(id) ?? new Set();
    set.add(waker);
    this.waiters.set(id, set);
    const stop = () => {
      timedOut = true;
      wake();
    };
    const timer = setTimeout(stop, timeoutMs);
    signal?.addEventListener("abort", stop, { once: true });
    try {
      // Registered and subscribed first, then read: an end announced between the two wakes the
      // wait below, which reads again.
      await Promise.race([this.listen(), woken]);
      for (;;) {
        woken = new Promise<void>((r) => {
          wake = r;
        });
        const done = await read();
        if (done) return done;
        if (timedOut) return undefined;
        await woken;
        if (timedOut) return undefined;
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
      set.delete(waker);
      if (set.size === 0) this.waiters.delete(id);
    }
  }
}
