import type { Database } from "better-sqlite3";
import { prepared } from "./prepared.js";

/** How long a write waits for a file's write lock before it fails (the connections' busy_timeout). */
export const WRITE_LOCK_TIMEOUT_MS = 5_000;
/** Between two attempts at a locked file: a timer tick, so that the event loop runs meanwhile. */
const RETRY_MS = 1;

/** SQLite's "database is locked" (SQLITE_BUSY and its extended codes). */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * One attempt at `write` (an IMMEDIATE transaction or a single write statement) that fails at
 * once with SQLITE_BUSY when another connection holds the file's write lock, instead of sleeping
 * in SQLite's busy handler: that handler sleeps the calling thread (1, 2, 5, 10 … 100 ms, longer
 * the more it failed), which on an event loop stops every request it serves. The connection's
 * busy timeout is set back afterwards.
 */
export function tryWrite<T>(db: Database, write: () => T): T {
  const timeout = busyTimeoutOf(db);
  // Prepared once per connection: `db.pragma` prepares its statement on every call (three of them
  // cost ≈ 11 µs a write, these two ≈ 1.7 µs).
  prepared(db, "PRAGMA busy_timeout = 0").get();
  try {
    return write();
  } finally {
    prepared(db, `PRAGMA busy_timeout = ${timeout}`).get();
  }
}

/** Each connection's own busy timeout, read once: nothing but `tryWrite` changes it, and it sets it back. */
const busyTimeouts = new WeakMap<Database, number>();
function busyTimeoutOf(db: Database): number {
  let timeout = busyTimeouts.get(db);
  if (timeout === undefined) {
    timeout = db.pragma("busy_timeout", { simple: true }) as number;
    busyTimeouts.set(db, timeout);
  }
  return timeout;
}

/**
 * Runs `write` (see `tryWrite`) until the write lock is free, each retry on a timer: the event
 * loop serves other work while another thread's transaction holds the file, and a waiter tries
 * every millisecond instead of backing off to 100 ms sleeps (with a writer that commits back to
 * back, SQLite's backoff left a waiter out for 0.3–0.7 s: bench/lock-wait.mjs). Fails with the
 * SQLITE_BUSY error after `timeoutMs`, as the busy timeout would.
 */
export async function writeWhenFree<T>(db: Database, write: () => T, timeoutMs = WRITE_LOCK_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return tryWrite(db, write);
    } catch (err) {
      if (!isBusy(err) || Date.now() >= deadline) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

/** Rows deleted per write by `deleteInChunks`. */
const DELETE_CHUNK_ROWS = 2_000;

/**
 * Runs a chunked delete until it deletes fewer than `chunkRows` rows: `sql` deletes at most the
 * number of rows given as its last parameter (`… WHERE key IN (SELECT key … LIMIT ?)`). Each chunk is
 * its own write (`writeWhenFree`), and after each the file stays free for as long as the chunk
 * held it: a purge of a large table never holds the write lock for long, and the processing
 * thread, asleep in SQLite's busy handler meanwhile, finds the file free at one of its next tries.
 * Returns the number of rows deleted.
 */
export async function deleteInChunks(
  db: Database,
  sql: string,
  args: readonly unknown[],
  chunkRows = DELETE_CHUNK_ROWS,
): Promise<number> {
  const statement = prepared(db, sql);
  let deleted = 0;
  for (;;) {
    let held = 0;
    const { changes } = await writeWhenFree(db, () => {
      const started = performance.now();
      const result = statement.run(...args, chunkRows);
      held = performance.now() - started;
      return result;
    });
    deleted += changes;
    if (changes < chunkRows) return deleted;
    await new Promise((resolve) => setTimeout(resolve, Math.max(RETRY_MS, held)));
  }
}
