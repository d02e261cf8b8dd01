import { prepared } from "@tocsin/store";
import type { Database as Db } from "better-sqlite3";
import { laneGroups } from "../lane-groups.js";
import type { JobResult, QueuedJob, RunningJob } from "../queue.js";
import type { JobRow } from "./schema.js";

/**
 * Packs: on an ordered queue, the undelayed jobs one group commit stores in a lane are one row
 * (a pack) instead of one row each, so that a 100-alert post writes a row per lane, and a lane's
 * batch reads and ends a few rows instead of one per job. `job_units` keeps each packed job's id
 * (a re-added id is skipped, `waitFor` finds its result) and its place in the row. A pack's row
 * runs as its jobs in order; the first `done` of them have ended, their results in the row's
 * `result` (a JSON array), and `attempts` counts the runs of the job at `done`, so that a retry
 * holds the lane at that job as for a job alone. A job stored alone (one job of a lane in a
 * commit, a delayed one, any job of an unordered queue, a row of a file from before packs) is a
 * row of its own as before.
 */

const PACK_NAME = "tocsin-pack";
/** Jobs per pack at most. */
export const PACK_MAX = 32;

interface PackedJob {
  id: string;
  name: string;
  data: unknown;
}

/** A job of a row as a batch runs it: the row it is stored in, and its place there (-1: alone). */
export interface Unit {
  row: JobRow;
  idx: number;
  job: RunningJob;
}

/** The ids among `ids` stored (alone or packed) or stored before and not yet swept: one statement. */
function known(db: Db, ids: string[]): Set<string> {
  return new Set(
    prepared(
      db,
      "SELECT j.value FROM json_each(?) j WHERE EXISTS (SELECT 1 FROM jobs WHERE id = j.value) OR EXISTS (SELECT 1 FROM job_units WHERE id = j.value)",
    )
      .pluck()
      .all(JSON.stringify(ids)) as string[],
  );
}

/**
 * Writes a group commit's jobs (inside its transaction), per lane in array order: the undelayed
 * jobs not yet known as packs of up to PACK_MAX, a pack of one and a delayed job alone.
 */
export function insertPacked(db: Db, jobs: QueuedJob[], now: number): void {
  // An id twice in one write (two adds of one job): the first.
  for (const laneJobs of laneGroups(jobs, { firstOfEachId: true }).values()) {
    if (laneJobs.length === 1) {
      insertAlone(db, laneJobs[0] as QueuedJob, now, true);
      continue;
    }
    const skip = known(
      db,
      laneJobs.map((job) => job.id),
    );
    let pack: QueuedJob[] = [];
    for (const job of laneJobs) {
      if (skip.has(job.id)) continue;
      if (job.delayMs) {
        writePack(db, pack, now);
        pack = [];
        insertAlone(db, job, now);
        continue;
      }
      pack.push(job);
      if (pack.length === PACK_MAX) {
        writePack(db, pack, now);
        pack = [];
      }
    }
    writePack(db, pack, now);
  }
}

/**
 * The queue's write of a job alone (also every job of an unordered queue): a known id is skipped;
 * `orPacked`: an id known as a packed job's (in `job_units`) too.
 */
export function insertAlone(db: Db, job: QueuedJob, now: number, orPacked = false): void {
  prepared(
    db,
    orPacked
      ? "INSERT OR IGNORE INTO jobs (id, name, lane, data, created_at, run_after) SELECT @id, @name, @lane, @data, @now, @due WHERE NOT EXISTS (SELECT 1 FROM job_units WHERE id = @id)"
      : "INSERT OR IGNORE INTO jobs (id, name, lane, data, created_at, run_after) VALUES (@id, @name, @lane, @data, @now, @due)",
  ).run({ id: job.id, name: job.name, lane: job.lane, data: JSON.stringify(job.data), now, due: now + (job.delayMs ?? 0) });
}

function writePack(db: Db, jobs: QueuedJob[], now: number): void {
  const [first] = jobs;
  if (!first) return;
  if (jobs.length === 1) {
    insertAlone(db, first, now);
    return;
  }
  // Known ids were left out above, and this row's id is its first job's: no conflict.
  const packed: PackedJob[] = jobs.map((job) => ({ id: job.id, name: job.name, data: job.data }));
  const { lastInsertRowid: seq } = prepared(
    db,
    "INSERT INTO jobs (id, name, lane, data, units, created_at, run_after) VALUES (?, ?, ?, ?, ?, ?, ?)",
  ).run(`pack:${first.id}`, PACK_NAME, first.lane, JSON.stringify(packed), jobs.length, now, now);
  prepared(db, "INSERT INTO job_units (id, seq, idx) SELECT value, ?, key FROM json_each(?)").run(
    seq,
    JSON.stringify(jobs.map((job) => job.id)),
  );
}

/**
 * The jobs of a lane's due rows that one batch runs, in order: whole rows while they fit in
 * `max` jobs, and at least the first row's next `max` (a pack larger than `max` ends over several
 * batches).
 */
export function unitsOf(rows: JobRow[], max: number): Unit[] {
  const units: Unit[] = [];
  for (const row of rows) {
    const left = row.name === PACK_NAME ? row.units - row.done : 1;
    if (units.length > 0 && units.length + left > max) break;
    if (row.name !== PACK_NAME) {
      units.push({ row, idx: -1, job: { id: row.id, name: row.name, data: JSON.parse(row.data), attempt: row.attempts + 1 } });
      continue;
    }
    const packed = JSON.parse(row.data) as PackedJob[];
    for (let idx = row.done; idx < Math.min(row.units, row.done + max); idx++) {
      const { id, name, data } = packed[idx] as PackedJob;
      units.push({ row, idx, job: { id, name, data, attempt: idx === row.done ? row.attempts + 1 : 1 } });
    }
  }
  return units;
}

/** A packed job's end as stored: in its row's results once the row's `done` has passed it. */
export function packedEnd(db: Db, id: string): JobResult | undefined {
  const row = prepared(
    db,
    "SELECT u.idx AS idx, j.done AS done, j.result AS result FROM job_units u JOIN jobs j ON j.seq = u.seq WHERE u.id = ?",
  ).get(id) as { idx: number; done: number; result: string | null } | undefined;
  if (!row || row.idx >= row.done || row.result === null) return undefined;
  return (JSON.parse(row.result) as JobResult[])[row.idx];
}
