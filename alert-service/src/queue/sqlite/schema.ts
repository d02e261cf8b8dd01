import { unavailable } from "@tocsin/core";
import { type Checkpoints, openSqlite } from "@tocsin/store";
import type { Database as Db } from "better-sqlite3";

/**
 * A pending row as the lanes read it: one job, or a pack of `units` jobs (packs.ts) of which the
 * first `done` have ended (their results in `result`, a JSON array); `attempts` counts the runs of
 * the job at index `done`.
 */
export interface JobRow {
  seq: number;
  id: string;
  name: string;
  data: string;
  attempts: number;
  run_after: number;
  units: number;
  done: number;
  result: string | null;
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
  finished_at INTEGER,
  units INTEGER NOT NULL DEFAULT 1,
  done INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS job_units (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  idx INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS job_units_seq ON job_units (seq);
`;
// Only pending jobs are indexed (beside the id): an add writes one index entry besides the id's,
// an end removes it. Finished jobs are swept by seq ranges (see sweep.ts), not through an index.
// The index holds how many jobs each pending row has left (units - done), so that counting the
// waiting jobs reads it alone, not the rows (a pack's row spans overflow pages before those
// columns). `job_units` names the jobs packed in a row (packs.ts): a job's id, its row and its
// place in it.
const INDEXES = `
DROP INDEX IF EXISTS jobs_lane_pending;
DROP INDEX IF EXISTS jobs_finished;
DROP INDEX IF EXISTS jobs_pending;
CREATE INDEX IF NOT EXISTS jobs_pending_units ON jobs (lane, seq, units, done) WHERE status = 'pending';
`;

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
export function openQueueDb(file: string, checkpoints: Checkpoints, ordered = true): Db {
  const db = openSqlite(file, { checkpoints });
  db.exec(SCHEMA);
  addPackColumns(db);
  db.exec(INDEXES);
  if (!ordered) db.exec(DUE_INDEX);
  return db;
}

/**
 * An unordered queue (timers, mail) reads a lane's due jobs by `run_after`: without this index
 * that read sorted every pending job of the lane, delayed ones included — one auto-resolve or
 * unsilence timer per alert made each wake of its loop linear in them (520 µs at 5,000 pending,
 * 8.8 ms at 55,000; 32 µs with it). Ordered queues (the alert lanes, the channels) read by `seq`
 * and do not pay for it on their adds.
 */
const DUE_INDEX = "CREATE INDEX IF NOT EXISTS jobs_pending_due ON jobs (lane, run_after, seq) WHERE status = 'pending';";

/** A file written before packs gains their two columns (its rows are single jobs: 1 unit, none done). */
function addPackColumns(db: Db): void {
  const hasUnits = () => (db.prepare("PRAGMA table_info(jobs)").all() as Array<{ name: string }>).some((c) => c.name === "units");
  if (hasUnits()) return;
  // Checked again under the write lock: the other thread's connection may have added them meanwhile.
  db.transaction(() => {
    if (hasUnits()) return;
    db.exec(
      "ALTER TABLE jobs ADD COLUMN units INTEGER NOT NULL DEFAULT 1; ALTER TABLE jobs ADD COLUMN done INTEGER NOT NULL DEFAULT 0",
    );
  }).immediate();
}

/** The port's promise: a job that could not be stored is UNAVAILABLE, never a driver error. */
export function queueUnavailable(err: unknown) {
  return unavailable("QUEUE_UNAVAILABLE", "The alert queue is unavailable, try again later", err, 5);
}
