import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";
import type { Database } from "better-sqlite3";

/**
 * A writer's WAL checkpoints done by another thread (issue 25). SQLite's automatic checkpoint runs
 * inside the commit that crosses its limit, on the writer's thread: in a storm the processing
 * thread's `alert.db` commits spent ≈ 120 ms in one every 0.7 s, a third of their time
 * (bench/notes/2026-11-29-checkpoint-thread.md). A checkpointer connection in a thread of its own
 * copies the frames instead (PASSIVE: never waits for, nor blocks, the writer or readers), and the
 * writer's own automatic checkpoint stays as the bound on the WAL (`openSqlite`'s
 * `checkpoints: "elsewhere"`): the writer then copies only what the checkpointer had not reached.
 */

/** The wal-index header (the `-shm` file, https://www.sqlite.org/walformat.html): mxFrame and nBackfill, native byte order. */
const MX_FRAME = 16;
const N_BACKFILL = 96;
const HEADER_BYTES = 100;
const header = Buffer.alloc(HEADER_BYTES);

/**
 * Frames in `file`'s WAL (`written`: the log's length, which the writer's automatic checkpoint
 * looks at) and those not yet copied into the database (`waiting`); 0 and 0 when the database
 * has no wal-index (not in WAL mode, or no connection has it open). A read of 100 bytes, no lock:
 * a torn read only makes the next checkpoint earlier or later.
 */
export function walFrames(file: string): { written: number; waiting: number } {
  let fd: number;
  try {
    fd = openSync(`${file}-shm`, "r");
  } catch {
    return { written: 0, waiting: 0 };
  }
  try {
    if (readSync(fd, header, 0, HEADER_BYTES, 0) < HEADER_BYTES) return { written: 0, waiting: 0 };
  } finally {
    closeSync(fd);
  }
  const le = endianness() === "LE";
  const written = le ? header.readUInt32LE(MX_FRAME) : header.readUInt32BE(MX_FRAME);
  const copied = le ? header.readUInt32LE(N_BACKFILL) : header.readUInt32BE(N_BACKFILL);
  // After a restart of the log, nBackfill is reset with mxFrame: never above it but for a torn read.
  return { written, waiting: written >= copied ? written - copied : written };
}

/**
 * A PASSIVE checkpoint of `db` (its own connection) when at least `pages` frames wait, or when
 * any wait and the log is within a quarter of `pages` of the writer's own checkpoint at `backstop`: that one
 * runs in the writer's commit, and then finds next to nothing left to copy. True when it ran.
 */
export function checkpointWhenDue(db: Database, pages: number, backstop = Number.POSITIVE_INFINITY): boolean {
  const { written, waiting } = walFrames(db.name);
  if (waiting === 0 || (waiting < pages && written < backstop - pages / 4)) return false;
  db.pragma("wal_checkpoint(PASSIVE)");
  return true;
}
