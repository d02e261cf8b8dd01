import { unavailable } from "@tocsin/core";
import { openSqlite } from "@tocsin/store";
import type { Database as Db } from "better-sqlite3";

/** A pending job as the lanes read it. */
export interface JobRow {
  seq: number;
  id: string;
  name: string;
  data: string;
  attempts: number;
  run_after: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  lane INTEGER NOT NULL,
  data TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  run_after INTEGER NOT NULL DEFAULT 0,
  result TEXT,
  error TEXT,
  created_at INTEGER NOT NULL,
  finished_at INTEGER
);
DROP INDEX IF EXISTS jobs_lane_pending;
DROP INDEX IF EXISTS jobs_finished;
CREATE INDEX IF NOT EXISTS jobs_pending ON jobs (lane, seq) WHERE status = 'pending';
`;
// Only pending jobs are indexed (beside the id): an add writes one index entry besides the id's,
// an end removes it. Finished jobs are swept by seq ranges (see sweep.ts), not through an index.

/**
 * Opens the queue's file with its table. The connection commits with synchronous NORMAL (WAL):
 * every commit survives a process crash at once. What `synchronous = FULL` adds — the WAL synced
 * to disk at each commit — is done for the group commits of `add` only, and not in the commit:
 * SQLite's FULL would fsync on the event loop (≈ 40 % of the accepting thread's busy time in a
 * storm, measured), so the adds of a commit resolve once an `fdatasync` of the WAL file, started
 * after that commit, has returned from libuv's thread pool (group-commit.ts); meanwhile the loop
 * parses and commits the next posts. The WAL holds every committed frame until a checkpoint has
 * copied it into the database file and synced that file, so the synced WAL (or the synced
 * database) has the job. Attempt counts and results of running jobs reach the disk with the next
 * such sync or checkpoint: a power loss just after a job finished can forget that it finished,
 * and the job runs again — harmless, jobs are idempotent, and the alert data they wrote is itself
 * committed with NORMAL (service.ts).
 */
export function openQueueDb(file: string, checkpoints: boolean): Db {
  const db = openSqlite(file);
  if (!checkpoints) db.pragma("wal_autocheckpoint = 0");
  db.exec(SCHEMA);
  return db;
}

/** The port's promise: a job that could not be stored is UNAVAILABLE, never a driver error. */
export function queueUnavailable(err: unknown) {
  return unavailable("QUEUE_UNAVAILABLE", "The alert queue is unavailable, try again later", err, 5);
}
