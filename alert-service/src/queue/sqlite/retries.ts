import type { Logger } from "@tocsin/core";
import { prepared } from "@tocsin/store";
import type { Database as Db } from "better-sqlite3";
import { type Backoff, backoffMs, type JobOutcome, type JobResult, UnrecoverableJobError } from "../queue.js";
import type { JobRow } from "./schema.js";

export interface BatchEnd {
  /** The jobs that ended (completed, or failed for good), in lane order. */
  ended: Array<{ row: JobRow; result: JobResult }>;
  /** The first failure that will be tried again, delayed by the backoff. */
  retry?: { row: JobRow; runAfter: number };
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
export function endOfBatch(rows: JobRow[], outcomes: JobOutcome[], rules: RetryRules): BatchEnd {
  const ended: BatchEnd["ended"] = [];
  for (const [i, outcome] of outcomes.slice(0, rows.length).entries()) {
    const row = rows[i] as JobRow;
    const attempt = row.attempts + 1;
    if (outcome.ok) {
      ended.push({ row, result: { state: "completed", result: outcome.result ?? null } });
      continue;
    }
    const err = outcome.error;
    if (!(err instanceof UnrecoverableJobError) && attempt < rules.maxAttempts)
      return { ended, retry: { row, runAfter: Date.now() + (rules.backoff ?? backoffMs)(attempt) } };
    rules.logger.error({ err, jobId: row.id, job: row.name, attempt }, "job failed for good");
    ended.push({ row, result: { state: "failed", error: err instanceof Error ? err.message : String(err) } });
    break;
  }
  return { ended };
}

/**
 * The end of a batch in one transaction: each ended job's state, attempts and result, and the
 * retry's next attempt and when it is due. Attempts are counted when a run ends, so a crash
 * mid-batch re-runs the batch as the same attempts (jobs are idempotent).
 */
export function createBatchRecorder(db: Db): (end: BatchEnd) => void {
  const record = db.transaction(({ ended, retry }: BatchEnd) => {
    for (const { row, result } of ended) finish(db, row, result);
    if (retry)
      prepared(db, "UPDATE jobs SET attempts = ?, run_after = ? WHERE seq = ?").run(
        retry.row.attempts + 1,
        retry.runAfter,
        retry.row.seq,
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
