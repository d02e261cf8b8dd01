import { prepared } from "@tocsin/store";
import type { Database as Db } from "better-sqlite3";
import type { JobRow } from "./schema.js";

/**
 * Claims the lane's next due jobs, at most `max`. Ordered: the head of the lane and the jobs
 * behind it up to the first that is not due (a retrying head holds the lane); `wait` is how long
 * until the head is due. Unordered: whichever jobs are due, earliest first.
 */
export function nextDue(db: Db, lane: number, max: number, ordered: boolean): { jobs: JobRow[]; wait: number } {
  const now = Date.now();
  if (!ordered) {
    const jobs = prepared(
      db,
      "SELECT seq, id, name, data, attempts, run_after FROM jobs WHERE lane = ? AND status = 'pending' AND run_after <= ? ORDER BY run_after, seq LIMIT ?",
    ).all(lane, now, max) as JobRow[];
    if (jobs.length) return { jobs, wait: 0 };
    // Sleep until the earliest delayed job is due (a timer fires on time, not up to 1 s late).
    const first = prepared(db, "SELECT MIN(run_after) AS at FROM jobs WHERE lane = ? AND status = 'pending'").get(lane) as {
      at: number | null;
    };
    return { jobs, wait: first.at === null ? 1000 : Math.max(1, first.at - now) };
  }
  const rows = prepared(
    db,
    "SELECT seq, id, name, data, attempts, run_after FROM jobs WHERE lane = ? AND status = 'pending' ORDER BY seq LIMIT ?",
  ).all(lane, max) as JobRow[];
  const head = rows[0];
  if (!head) return { jobs: [], wait: 1000 };
  if (head.run_after > now) return { jobs: [], wait: head.run_after - now };
  const due = rows.findIndex((r) => r.run_after > now);
  return { jobs: due < 0 ? rows : rows.slice(0, due), wait: 0 };
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
