import { AppError, KeyedLock } from "@tocsin/core";

/** MongoDB's `MaxTimeMSExpired` (FerretDB answers it too). */
const MAX_TIME_EXPIRED = 50;

/** What a read past its caller's deadline fails with. */
export function tooLate(cause?: unknown): AppError {
  return new AppError("DEADLINE_EXCEEDED", "READ_DEADLINE_EXCEEDED", "The read of alerts took longer than its caller waits", {
    retryAfterSeconds: 5,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * The reads of a project's alerts that FerretDB 1.x answers by going through all of them (it
 * filters, sorts and counts in Go: about a second per 20,000 alerts): the alert lists and the
 * overview's counts. On FerretDB a process runs them one at a time, so that a console's polls (six
 * lists per poll of the alerts page) leave FerretDB's CPU to processing; on MongoDB, whose indexes
 * answer them, side by side (docs/scaling.md).
 *
 * A read ends at its caller's deadline (the gRPC call's, when it has one): one whose turn comes
 * after it is not started, and the server stops one still running then (`maxTimeMS`, which
 * FerretDB honours too: it stops reading). Either way DEADLINE_EXCEEDED.
 */
export class AlertScans {
  private readonly queue: KeyedLock<number> | undefined;

  constructor(oneAtATime: boolean) {
    this.queue = oneAtATime ? new KeyedLock<number>() : undefined;
  }

  /** One turn of `body`, bounded by `deadlineMs` (epoch ms; none: unbounded): see `bounded`. */
  run<T>(deadlineMs: number | undefined, body: (bound: () => Bound) => Promise<T>): Promise<T> {
    return this.turn(() => bounded(deadlineMs, body));
  }

  /** Runs `task` in its turn: after the turns before it on FerretDB, at once on MongoDB. */
  turn<T>(task: () => Promise<T>): Promise<T> {
    return this.queue ? this.queue.run(0, task) : task();
  }

  /** Two reads of a turn: side by side on MongoDB, one after the other on FerretDB. */
  async pair<A, B>(a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]> {
    if (!this.queue) return Promise.all([a(), b()]);
    const first = await a();
    return [first, await b()];
  }
}

/**
 * Runs `body`, which bounds each of its reads with `bound()`: the time left until `deadlineMs` as
 * `maxTimeMS`, or DEADLINE_EXCEEDED once none is left. The server's MaxTimeMSExpired becomes
 * DEADLINE_EXCEEDED too.
 */
export async function bounded<T>(deadlineMs: number | undefined, body: (bound: () => Bound) => Promise<T>): Promise<T> {
  try {
    return await body(() => boundBy(deadlineMs));
  } catch (err) {
    throw (err as { code?: unknown }).code === MAX_TIME_EXPIRED ? tooLate(err) : err;
  }
}

/** The options that end a read at its caller's deadline. */
export interface Bound {
  maxTimeMS?: number;
}

function boundBy(deadlineMs: number | undefined): Bound {
  if (deadlineMs === undefined) return {};
  const left = Math.ceil(deadlineMs - Date.now());
  if (left <= 0) throw tooLate();
  return { maxTimeMS: left };
}
