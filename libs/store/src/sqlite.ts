import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

export interface SqliteOptions {
  /** `synchronous` of the connection; NORMAL (durable against a process crash in WAL mode) unless said. */
  synchronous?: "OFF" | "NORMAL" | "FULL" | "EXTRA";
}

/**
 * Opens (creating its directory) an embedded database the way every service does: WAL journal,
 * `synchronous = NORMAL`, and a 5 s busy timeout. `:memory:` gives a private in-memory database.
 */
export function openSqlite(file: string, opts: SqliteOptions = {}): Database.Database {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${opts.synchronous ?? "NORMAL"}`);
  db.pragma("busy_timeout = 5000");
  return db;
}
