import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

export interface SqliteOptions {
  /** `synchronous` of the connection; NORMAL (durable against a process crash in WAL mode) unless said. */
  synchronous?: "OFF" | "NORMAL" | "FULL" | "EXTRA";
}

/**
 * Opens (creating its directory) an embedded database the way every service does: WAL journal,
 * `synchronous = NORMAL`, a 5 s busy timeout, and temporary files in memory (`temp_store`: the
 * savepoint and statement journals of nested transactions, which otherwise write every page a
 * savepoint touches to a temporary file; measured: 35 writes per processed alert inside a batch
 * transaction, 0.107 → 0.062 ms of CPU per alert). `:memory:` gives a private in-memory database.
 */
export function openSqlite(file: string, opts: SqliteOptions = {}): Database.Database {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${opts.synchronous ?? "NORMAL"}`);
  db.pragma("busy_timeout = 5000");
  db.pragma("temp_store = MEMORY");
  return db;
}
