import { prepared } from "@tocsin/store";
import type { Database as Db } from "better-sqlite3";

/**
 * Deletes the jobs that finished more than `retainMs` ago, every `everyMs`. A job that finished
 * then was added before then, so it lies at or below the last seq of a sweep made before then:
 * only that range is read (seq is the rowid), not the whole file. After a restart the first such
 * bound is `retainMs` away, so finished jobs stay that much longer once.
 */
export class FinishedJobSweeper {
  /** The last seq at each sweep: the jobs up to it were added by then. */
  private sweeps: Array<{ at: number; seq: number }> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly retainMs: number,
  ) {}

  start(everyMs: number): void {
    this.timer = setInterval(() => this.sweep(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private sweep(): void {
    const now = Date.now();
    const { seq } = prepared(this.db, "SELECT COALESCE(MAX(seq), 0) AS seq FROM jobs").get() as { seq: number };
    this.sweeps.push({ at: now, seq });
    const cutoff = now - this.retainMs;
    const past = this.sweeps.filter((s) => s.at <= cutoff);
    const bound = past.at(-1);
    if (!bound) return;
    this.sweeps = this.sweeps.filter((s) => s.at > bound.at);
    const sweep = this.db.transaction(() => {
      // A pack's jobs go with its row.
      prepared(
        this.db,
        "DELETE FROM job_units WHERE seq IN (SELECT seq FROM jobs WHERE seq <= ? AND status <> 'pending' AND finished_at < ? AND units > 1)",
      ).run(bound.seq, cutoff);
      prepared(this.db, "DELETE FROM jobs WHERE seq <= ? AND status <> 'pending' AND finished_at < ?").run(bound.seq, cutoff);
    });
    sweep.immediate();
  }
}
