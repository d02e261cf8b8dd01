import type { Logger } from "@tocsin/core";
import { prepared } from "@tocsin/store";
import type { Database as Db } from "better-sqlite3";
import { type Backoff, backoffMs, type JobOutcome, type JobResult, UnrecoverableJobError } from "../queue.js";
import type { Unit } from "./packs.js";
import type { JobRow } from "./schema.js";

export interface BatchEnd {
  /** The jobs that ended (completed, or failed for good), in lane order. */
  ended: Array<{ unit: Unit; result: JobResult }>;
  /** The first failure that will be tried again, delayed by the backoff. */
  retry?: { unit: Unit; runAfter: number };
}

export interface RetryRules {
  maxAttempts: number;
  backoff?: Backoff;
  logger: Logger;
}

/**
 * What a batch's outcomes mean for its jobs: those that completed, and the first failure —
 * retried after a backoff, or failed for good (unrecoverable, or out of attempts); the jobs after
 * it were not run and stay as they are.
 */
export function endOfBatch(units: Unit[], outcomes: JobOutcome[], rules: RetryRules): BatchEnd {
  const ended: BatchEnd["ended"] = [];
  for (const [i, outcome] of outcomes.slice(0, units.length).entries()) {
    const unit = units[i] as Unit;
    const { attempt, id } = unit.job;
    if (outcome.ok) {
      ended.push({ unit, result: { state: "completed", result: outcome.result ?? null } });
      continue;
    }
    const err = outcome.error;
    if (!(err instanceof UnrecoverableJobError) && attempt < rules.maxAttempts)
      return { ended, retry: { unit, runAfter: Date.now() + (rules.backoff ?? backoffMs)(attempt) } };
    rules.logger.error({ err, jobId: id, job: unit.job.name, attempt }, "job failed for good");
    ended.push({ unit, result: { state: "failed", error: err instanceof Error ? err.message : String(err) } });
    break;
  }
  return { ended };
}

/**
 * The end of a batch in one transaction: each ended job's state, attempts and result (a pack's
 * row: how many of its jobs ended, their results, and once all did, its end with its data
 * dropped), and the retry's next attempt and when it is due. Attempts are counted when a run
 * ends, so a crash mid-batch re-runs the batch as the same attempts (jobs are idempotent).
 */
export function createBatchRecorder(db: Db): (end: BatchEnd) => void {
  const record = db.transaction(({ ended, retry }: BatchEnd) => {
    const packs = new Map<number, { row: JobRow; results: JobResult[] }>();
    for (const { unit, result } of ended) {
      if (unit.idx < 0) {
        finish(db, unit.row, result);
        continue;
      }
      const pack = packs.get(unit.row.seq);
      if (pack) pack.results.push(result);
      else packs.set(unit.row.seq, { row: unit.row, results: [result] });
    }
    for (const { row, results } of packs.values()) advance(db, row, results);
    // After `advance`: a retry in a pack whose earlier jobs just ended sets the attempts that
    // `advance` reset for the pack's new head.
    if (retry)
      prepared(db, "UPDATE jobs SET attempts = ?, run_after = ? WHERE seq = ?").run(
        retry.unit.job.attempt,
        retry.runAfter,
        retry.unit.row.seq,
      );
  });
  return (end) => record(end);
}

function finish(db: Db, job: JobRow, result: JobResult): void {
  const completed = result.state === "completed";
  prepared(db, "UPDATE jobs SET status = ?, attempts = ?, result = ?, error = ?, finished_at = ? WHERE seq = ?").run(
    result.state,
    job.attempts + 1,
    completed ? JSON.stringify(result.result) : null,
    completed ? null : result.error,
    Date.now(),
    job.seq,
  );
}

/** A pack's next jobs ended: its results so far; once all ended, its end, with its data (no longer read) dropped. */
function advance(db: Db, row: JobRow, results: JobResult[]): void {
  const done = row.done + results.length;
  const all = row.done > 0 && row.result ? [...(JSON.parse(row.result) as JobResult[]), ...results] : results;
  if (done < row.units) {
    prepared(db, "UPDATE jobs SET done = ?, attempts = 0, result = ? WHERE seq = ?").run(done, JSON.stringify(all), row.seq);
    return;
  }
  prepared(
    db,
    "UPDATE jobs SET status = 'completed', done = ?, attempts = 0, result = ?, data = '', finished_at = ? WHERE seq = ?",
  ).run(done, JSON.stringify(all), Date.now(), row.seq);
}
