import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { WRITE_LOCK_TIMEOUT_MS } from "./write-lock.js";

export interface SqliteOptions {
  /** `synchronous` of the connection; NORMAL (durable against a process crash in WAL mode) unless said. */
  synchronous?: "OFF" | "NORMAL" | "FULL" | "EXTRA";
  /**
   * Who checkpoints this connection's writes: "here" (SQLite's automatic checkpoint every
   * WAL_AUTOCHECKPOINT_PAGES, in the commit that crosses it; the default); "elsewhere": a
   * checkpointer thread does (wal-checkpoints.ts), and this connection's automatic checkpoint
   * only bounds the WAL, at WAL_BACKSTOP_PAGES; or "never": another connection to the file does
   * (the thread that accepts alerts leaves them to the processing thread's side).
   */
  checkpoints?: Checkpoints;
}

export type Checkpoints = "here" | "elsewhere" | "never";

/**
 * WAL pages (4 KiB) after which a commit checkpoints: 16,000 (64 MiB) instead of SQLite's 1,000.
 * A checkpoint copies each page of the WAL into the file once, however often it was rewritten
 * meanwhile (the ends of append-only indexes are rewritten by every commit), and syncs the file,
 * on the thread whose commit crossed the limit: fewer, larger checkpoints cost that thread less
 * per write. 4,000 → 16,000 (2026-11-28, `bench/storm.mjs --quick`, alternating runs): batches
 * processed +8 to +15 %, single posts +12 to +26 % (bench/notes/2026-11-28-wal-checkpoints.md).
 * Moving those checkpoints to a thread of their own (`checkpoints: "elsewhere"`) gained another
 * +9 to +10 % (bench/notes/2026-11-29-checkpoint-thread.md). The price is a WAL file
 * of up to ≈ 64 MiB per busy database (SQLite reuses it, it does not shrink) and a longer
 * recovery read after a crash.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 16000;

/** A writer's own checkpoint when a checkpointer thread does them: the WAL's bound if that thread falls behind or is gone. */
export const WAL_BACKSTOP_PAGES = 4 * WAL_AUTOCHECKPOINT_PAGES;

/** `wal_autocheckpoint` for each `checkpoints`. */
const AUTOCHECKPOINT: Record<Checkpoints, number> = {
  here: WAL_AUTOCHECKPOINT_PAGES,
  elsewhere: WAL_BACKSTOP_PAGES,
  never: 0,
};

/**
 * Opens (creating its directory) an embedded database the way every service does: WAL journal,
 * `synchronous = NORMAL`, a 5 s busy timeout, and temporary files in memory (`temp_store`: the
 * savepoint and statement journals of nested transactions, which otherwise write every page a
 * savepoint touches to a temporary file; measured: 35 writes per processed alert inside a batch
 * transaction, 0.107 → 0.062 ms of CPU per alert), and checkpoints every 64 MiB of WAL (see
 * WAL_AUTOCHECKPOINT_PAGES, or see `checkpoints`). `:memory:` gives a private in-memory database.
 */
export function openSqlite(file: string, opts: SqliteOptions = {}): Database.Database {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${opts.synchronous ?? "NORMAL"}`);
  db.pragma(`busy_timeout = ${WRITE_LOCK_TIMEOUT_MS}`);
  db.pragma("temp_store = MEMORY");
  db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT[opts.checkpoints ?? "here"]}`);
  return db;
}
