/**
 * The intake's bound on the processing backlog (issue 25, docs/alert-processing.md "Backlog
 * bound"). While the alerts queued and not yet processed reach `limit`, a webhook request is
 * held before its alerts are queued, until processing brings the backlog under the limit or the
 * request has waited `maxWaitMs`; then it is queued and answered as always. Nothing is refused:
 * a monitor sees a slower answer, never a 503, and processing keeps the CPU that accepting alerts
 * faster than they can be processed would take from it.
 *
 * The backlog is read from the queue (`pending`, every replica's) at most once per `sampleMs`,
 * and only while requests arrive or wait; between reads, what this process admitted since the
 * last read began counts on top of it. Held requests are let in first come, first served.
 */
export interface BacklogGateOptions {
  /** Jobs queued and not yet ended (GetIngestStats' `pending`). */
  pending(): Promise<number>;
  /** Hold requests while the backlog is at least this many alerts; 0 holds nothing. */
  limit: number;
  /** Longest hold of one request (ms); it is then queued whatever the backlog. */
  maxWaitMs: number;
  /** How often the backlog is read while requests arrive or wait (ms). */
  sampleMs?: number;
}

/** What the gate did since the process started (GetIngestStats' fields of the same names). */
export interface BacklogGateStats {
  /** Requests held. */
  held: number;
  /** Their total time held (ms). */
  heldMs: number;
  /** Held requests let in at their longest hold with the backlog still at the limit. */
  heldOverdue: number;
}

/** The stats of a process without a gate. */
export const NO_HOLDS: Readonly<BacklogGateStats> = { held: 0, heldMs: 0, heldOverdue: 0 };

export interface BacklogGate {
  /**
   * Resolves when a request of `alerts` alerts may be queued: at once while the backlog is under
   * the limit. `deadlineMs` (epoch ms): the caller's deadline; the hold ends a second before it.
   */
  admit(alerts: number, deadlineMs?: number): Promise<void>;
  stats(): BacklogGateStats;
  /** Lets every held request in (at shutdown). */
  close(): void;
}

/** Time left to queue and answer once a hold ends at the caller's deadline. */
const DEADLINE_MARGIN_MS = 1000;
const DEFAULT_SAMPLE_MS = 50;
/** A read of the backlog that takes longer counts as "the queue does not answer". */
const READ_TIMEOUT_MS = 1000;

interface Held {
  alerts: number;
  since: number;
  timer: ReturnType<typeof setTimeout>;
  resolve(): void;
}

export function createBacklogGate(opts: BacklogGateOptions): BacklogGate {
  const sampleMs = opts.sampleMs ?? DEFAULT_SAMPLE_MS;
  const held: Held[] = [];
  const stats: BacklogGateStats = { ...NO_HOLDS };
  let sampled = 0;
  let sampledAt = Number.NEGATIVE_INFINITY;
  /** Alerts admitted since the last read began: not necessarily in it. */
  let admittedSince = 0;
  let reading = false;
  /** Reads started: a read that answers after its timeout, when a later one may run, is ignored. */
  let reads = 0;
  let next: ReturnType<typeof setTimeout> | undefined;

  const room = () => sampled + admittedSince < opts.limit;

  const letIn = (h: Held) => {
    clearTimeout(h.timer);
    stats.heldMs += Date.now() - h.since;
    admittedSince += h.alerts;
    h.resolve();
  };

  const release = () => {
    while (held.length > 0 && room()) letIn(held.shift() as Held);
  };

  /** Settles a read: a count, or undefined when the queue did not answer (in time). */
  const settle = (n: number | undefined, before: number) => {
    reading = false;
    sampledAt = Date.now();
    // Unknown: hold nobody (queueing the request fails fast on its own when the queue is down).
    sampled = n ?? 0;
    admittedSince = n === undefined ? 0 : admittedSince - before;
    release();
    if (held.length > 0) readLater();
  };

  const read = () => {
    if (reading) return;
    reading = true;
    const before = admittedSince;
    const own = ++reads;
    const timer = setTimeout(() => {
      if (own === reads) settle(undefined, before);
    }, READ_TIMEOUT_MS);
    opts.pending().then(
      (n) => {
        clearTimeout(timer);
        if (own === reads && reading) settle(n, before);
      },
      () => {
        clearTimeout(timer);
        if (own === reads && reading) settle(undefined, before);
      },
    );
  };

  /** The next read, due `sampleMs` after the last one ended. */
  const readLater = () => {
    if (reading || next !== undefined) return;
    next = setTimeout(
      () => {
        next = undefined;
        read();
      },
      Math.max(0, sampleMs - (Date.now() - sampledAt)),
    );
  };

  const hold = (alerts: number, waitMs: number) =>
    new Promise<void>((resolve) => {
      const h: Held = {
        alerts,
        since: Date.now(),
        resolve,
        timer: setTimeout(() => {
          held.splice(held.indexOf(h), 1);
          stats.heldOverdue++;
          letIn(h);
        }, waitMs),
      };
      held.push(h);
      stats.held++;
      readLater();
    });

  return {
    async admit(alerts, deadlineMs) {
      if (opts.limit <= 0) return;
      if (Date.now() - sampledAt >= sampleMs) read();
      if (held.length === 0 && room()) {
        admittedSince += alerts;
        return;
      }
      const waitMs = Math.min(opts.maxWaitMs, deadlineMs ? deadlineMs - Date.now() - DEADLINE_MARGIN_MS : opts.maxWaitMs);
      if (waitMs <= 0) {
        admittedSince += alerts;
        return;
      }
      await hold(alerts, waitMs);
    },
    stats: () => ({ ...stats }),
    close() {
      clearTimeout(next);
      next = undefined;
      for (const h of held.splice(0)) letIn(h);
    },
  };
}
