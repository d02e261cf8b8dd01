import type { JobResult } from "../queue.js";
import type { Unit } from "./packs.js";
import type { JobRow } from "./schema.js";

/** Batches whose ends may wait for the file's write lock before a batch waits for it instead. */
export const MAX_PENDING_BATCHES = 4;

/**
 * Ended jobs of an ordered queue whose ends are not yet written (retries.ts records them): the
 * batches that ended them ran while another connection held the file's write lock (the accepting
 * thread's group commit), and the lane loop went on with its next batch rather than wait for it.
 * Until they are written, the rows read from the file are seen through them (`adjust`): a job
 * that ended is not run again. Lost with the process, as ends not yet recorded always were:
 * the jobs run again, idempotently.
 */
export class PendingEnds {
  private ended: Array<{ unit: Unit; result: JobResult }> = [];
  /** Per row: how many of its packed jobs ended (a row alone: 1, the row ended). */
  private readonly byRow = new Map<number, number>();
  private held = 0;

  /** A batch's ended jobs, in lane order, after those of earlier batches. */
  add(ended: Array<{ unit: Unit; result: JobResult }>): void {
    for (const end of ended) {
      this.ended.push(end);
      const seq = end.unit.row.seq;
      this.byRow.set(seq, (this.byRow.get(seq) ?? 0) + 1);
    }
    if (ended.length) this.held++;
  }

  /** Batches held so far (reset by `take`). */
  batches(): number {
    return this.held;
  }

  size(): number {
    return this.ended.length;
  }

  /**
   * The ends to record, in order: each row's first unit carries the row as stored, which the
   * recorder builds on (`advance`: its `done` and results so far). They stay pending until `clear`.
   */
  list(): Array<{ unit: Unit; result: JobResult }> {
    return this.ended;
  }

  /** The ends of `list` were recorded. */
  clear(): void {
    this.ended = [];
    this.byRow.clear();
    this.held = 0;
  }

  /**
   * A row as read from the file, seen through the pending ends: undefined when all its jobs
   * ended; a pack with ended jobs moves on past them (as `advance` will store it, its attempts
   * counting afresh for its new head).
   */
  adjust(row: JobRow): JobRow | undefined {
    const ended = this.byRow.get(row.seq);
    if (!ended) return row;
    // A row alone holds one job (units 1, done 0).
    const done = row.done + ended;
    if (done >= row.units) return undefined;
    return { ...row, done, attempts: 0 };
  }
}
