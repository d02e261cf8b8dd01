import { prepared } from "@tocsin/store";
import type { Database as Db } from "better-sqlite3";
import type { JobRow } from "./schema.js";

/**
 * Reads the lane's next due rows, each a job or a pack of jobs (packs.ts). Ordered: the head of
 * the lane and the rows behind it up to the first that is not due (a retrying head holds the
 * lane), while they hold at most `max` jobs not yet ended (the head alone when it holds more);
 * `wait` is how long until the head is due. Unordered (never packs): whichever jobs are due,
 * earliest first, at most `max`.
 */
export function nextDue(db: Db, lane: number, max: number, ordered: boolean): { jobs: JobRow[]; wait: number } {
  const now = Date.now();
  if (!ordered) {
    const jobs = prepared(
      db,
      "SELECT seq, id, name, data, attempts, run_after, units, done, result FROM jobs WHERE lane = ? AND status = 'pending' AND run_after <= ? ORDER BY run_after, seq LIMIT ?",
    ).all(lane, now, max) as JobRow[];
    if (jobs.length) return { jobs, wait: 0 };
    // Sleep until the earliest delayed job is due (a timer fires on time, not up to 1 s late).
    const first = prepared(db, "SELECT MIN(run_after) AS at FROM jobs WHERE lane = ? AND status = 'pending'").get(lane) as {
      at: number | null;
    };
    return { jobs, wait: first.at === null ? 1000 : Math.max(1, first.at - now) };
  }
  // Stepped row by row, not LIMIT max: a pack's row holds many jobs, and a batch reads only the
  // rows it runs (and the one after them).
  const jobs: JobRow[] = [];
  let units = 0;
  for (const row of prepared(
    db,
    "SELECT seq, id, name, data, attempts, run_after, units, done, result FROM jobs WHERE lane = ? AND status = 'pending' ORDER BY seq",
  ).iterate(lane) as IterableIterator<JobRow>) {
    if (row.run_after > now) {
      if (jobs.length === 0) return { jobs, wait: row.run_after - now };
      break;
    }
    if (jobs.length > 0 && units + row.units - row.done > max) break;
    jobs.push(row);
    units += row.units - row.done;
    if (units >= max) break;
  }
  return { jobs, wait: jobs.length ? 0 : 1000 };
}

/**
 * The due rows of several lanes for one batch (`mergeLanes`): each lane's as `nextDue` reads
 * them, lanes in the order of their oldest pending row (the oldest work first, and a group
 * commit's lanes in the order its jobs came, as loops per lane were woken), while they fit in
 * `max` jobs; a lane's head larger than the room left waits for a batch it comes first in.
 * `wait`: until the earliest head is due, when none is.
 */
export function dueAcrossLanes(db: Db, lanes: number, max: number): { jobs: JobRow[]; wait: number } {
  const head = prepared(db, "SELECT MIN(seq) FROM jobs WHERE lane = ? AND status = 'pending'").pluck();
  const order: Array<{ lane: number; seq: number }> = [];
  for (let lane = 0; lane < lanes; lane++) {
    const seq = head.get(lane) as number | null;
    if (seq !== null) order.push({ lane, seq });
  }
  order.sort((a, b) => a.seq - b.seq);
  const jobs: JobRow[] = [];
  let room = max;
  let wait = 1000;
  for (const { lane } of order) {
    if (room <= 0) break;
    const due = nextDue(db, lane, room, true);
    wait = Math.min(wait, due.wait);
    const units = due.jobs.reduce((n, row) => n + row.units - row.done, 0);
    if (units > room && jobs.length > 0) continue;
    jobs.push(...due.jobs);
    room -= units;
  }
  return { jobs, wait: jobs.length ? 0 : wait };
}

/** The lanes' idle loops: each sleeps until its next job is due or it is woken. */
export class LaneSleepers {
  private readonly wakers = new Map<number, () => void>();

  sleep(lane: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakers.set(lane, done);
    });
  }

  wake(lanes: number[]): void {
    for (const lane of lanes) this.wakers.get(lane)?.();
  }

  wakeAll(): void {
    for (const wake of this.wakers.values()) wake();
  }
}
