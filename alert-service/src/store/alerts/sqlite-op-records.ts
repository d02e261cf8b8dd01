import { prepared } from "@tocsin/store";
import type { Database } from "better-sqlite3";
import { OpenFingerprints } from "./sqlite-open-fingerprints.js";

/**
 * A change's op record (`alert_ops`, op = job id). A bare outcome recorded earlier is completed;
 * a change already recorded is not replaced, and the write reports 0 changes.
 */
const RECORD_OP = `INSERT INTO alert_ops (op, alert_id, created, at) VALUES (?, ?, ?, ?)
  ON CONFLICT (op) DO UPDATE SET alert_id = excluded.alert_id, created = excluded.created WHERE alert_id IS NULL`;

/** The change's op record and the job's outcome in one write (0 changes: the change was recorded already). */
const RECORD_OP_AND_OUTCOME = `INSERT INTO alert_ops (op, alert_id, created, at, outcome) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (op) DO UPDATE SET alert_id = excluded.alert_id, created = excluded.created, outcome = excluded.outcome
  WHERE alert_id IS NULL`;

/** A job's outcome: into its op record, or a row of its own when the job changed nothing. */
const RECORD_OUTCOME = `INSERT INTO alert_ops (op, outcome, at) VALUES (?, ?, ?)
  ON CONFLICT (op) DO UPDATE SET outcome = excluded.outcome WHERE outcome IS NULL`;

/** The record of a change that waits for its job's outcome. */
interface Waiting {
  alertId: number;
  created: 0 | 1;
  at: number;
}

/** A change's op record refused because the op has one: the transaction must not keep the change. */
const recordedAlready = (op: string) => new Error(`the op ${op} has a recorded change already`);

const perConnection = new WeakMap<Database, OpRecords>();

/** Rolls back the transaction a write without a savepoint joined, which then fails whole (see `inOneTransaction`). */
export function rollBackEnclosing(db: Database): void {
  if (db.inTransaction) prepared(db, "ROLLBACK").run();
  OpenFingerprints.of(db).released();
  OpRecords.of(db).end();
}

/**
 * The op records of a connection, shared by its stores. Inside a processing batch (from `begin`
 * to `end`, see `inOneTransaction`), a change whose job found no record of its op (`unrecorded`,
 * read by `startJob` in the batch's write transaction: nothing else can write one meanwhile)
 * waits for the job's outcome, and the two are written as one row: a new alert of a storm costs
 * one `alert_ops` write, not a record and then an update of it
 * (bench/notes/2026-12-02-one-pipeline.md). Whatever still waits is written without an outcome
 * before the batch's commit (`flush`), and before any read of `alert_ops` on the connection: a
 * change and its record stay in one transaction, as before. Outside a batch every record is
 * written at once.
 */
export class OpRecords {
  static of(db: Database): OpRecords {
    const found = perConnection.get(db) ?? new OpRecords(db);
    perConnection.set(db, found);
    return found;
  }

  /** Set between `begin` and `end`. */
  private batch: { unrecorded: Set<string>; waiting: Map<string, Waiting> } | undefined;

  private constructor(private readonly db: Database) {}

  /** A batch's write transaction began. */
  begin(): void {
    this.batch = { unrecorded: new Set(), waiting: new Map() };
  }

  /** The batch's transaction is over (committed, or rolled back: what waited was not written, nor was its change). */
  end(): void {
    this.batch = undefined;
  }

  /**
   * The waiting records written without outcomes (before a commit, before a read of `alert_ops`).
   * Should one fail, the transaction goes with every change that waited: a read that flushed
   * fails, and so does the batch (`inOneTransaction` finds its transaction lost).
   */
  flush(): void {
    // Not once the transaction is gone: what waited was rolled back with its change.
    const waiting = this.inBatch()?.waiting;
    if (!waiting?.size) return;
    const entries = [...waiting];
    waiting.clear();
    for (const [op, w] of entries) this.writeOrRollBack(op, RECORD_OP, [op, w.alertId, w.created, w.at]);
  }

  /** `startJob` read `op`'s record in the batch's transaction: there is none. */
  unrecorded(op: string): void {
    this.inBatch()?.unrecorded.add(op);
  }

  /** Whether `op` has a recorded change (looked up unless the batch knows). */
  hasChange(op: string): boolean {
    const batch = this.inBatch();
    if (batch?.waiting.has(op)) return true;
    if (batch?.unrecorded.has(op)) return false;
    return prepared(this.db, "SELECT 1 FROM alert_ops WHERE op = ? AND alert_id IS NOT NULL").get(op) !== undefined;
  }

  /**
   * Records that `op` changed alert `alertId` (`created`: it inserted it), in the caller's
   * transaction; false when its change is recorded already (nothing written). In a batch, for an
   * op with no record, the write waits for the outcome (`outcome`) or the commit (`flush`).
   */
  change(op: string, alertId: number, created: 0 | 1, at: number): boolean {
    const batch = this.inBatch();
    if (batch?.waiting.has(op)) return false;
    if (batch?.unrecorded.delete(op)) {
      batch.waiting.set(op, { alertId, created, at });
      return true;
    }
    return prepared(this.db, RECORD_OP).run(op, alertId, created, at).changes > 0;
  }

  /** The job's outcome (JSON), with its change's record when that waits. */
  outcome(op: string, outcome: string, at: number): void {
    const batch = this.inBatch();
    const waiting = batch?.waiting.get(op);
    batch?.unrecorded.delete(op);
    if (!waiting) {
      prepared(this.db, RECORD_OUTCOME).run(op, outcome, at);
      return;
    }
    batch?.waiting.delete(op);
    this.writeOrRollBack(op, RECORD_OP_AND_OUTCOME, [op, waiting.alertId, waiting.created, waiting.at, outcome]);
  }

  /**
   * A record of a change already written (it waited): should the write fail, or find the op
   * recorded already, the transaction goes rather than keep the change without its record.
   */
  private writeOrRollBack(op: string, sql: string, args: unknown[]): void {
    try {
      if (prepared(this.db, sql).run(...args).changes === 0) throw recordedAlready(op);
    } catch (err) {
      rollBackEnclosing(this.db);
      throw err;
    }
  }

  /** The batch, while its transaction is open (one rolled back by SQLite or a store is over). */
  private inBatch() {
    if (this.batch && !this.db.inTransaction) this.batch = undefined;
    return this.batch;
  }
}
