import { KeyedLock } from "@tocsin/core";
import type { Collection, Db } from "mongodb";

export { KeyedLock };

export const COLLECTIONS = {
  alerts: "alerts",
  activity: "alert_activity",
  incidents: "incidents",
  settings: "alert_settings",
  idempotency: "ingest_idempotency",
  processedJobs: "processed_jobs",
  counters: "counters",
} as const;

/**
 * A unique-index violation. FerretDB 1.x answers `insert` with code 11000 but a violating
 * `findAndModify` with another code whose message is SQLite's `UNIQUE constraint failed`.
 */
export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: number; message?: string };
  return e?.code === 11000 || /E11000|duplicate key|UNIQUE constraint failed/i.test(e?.message ?? "");
}

/**
 * Number sequences in a `counters` collection. `$inc` is atomic on MongoDB but not on FerretDB
 * 1.x (an unlocked read-modify-write), so increments of one sequence are also serialised within
 * this process. Inserts still go under unique indexes and retry on conflict, which covers
 * several processes on MongoDB. (An earlier version took "highest + 1" with a sorted query:
 * FerretDB's SQLite backend sorts in memory, which made every insert scan the collection.)
 */
export class MongoSequences {
  private static readonly locks = new KeyedLock();
  private readonly col: Collection<{ _id: string; seq: number }>;

  constructor(db: Db) {
    this.col = db.collection<{ _id: string; seq: number }>(COLLECTIONS.counters);
  }

  next(name: string): Promise<number> {
    return MongoSequences.locks.run(`${this.col.dbName}:${name}`, async () => {
      const doc = await this.col.findOneAndUpdate({ _id: name }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: "after" });
      if (!doc) throw new Error(`sequence ${name} did not answer`);
      return doc.seq;
    });
  }
}

/** How often an insert retries after losing a number to a concurrent insert. */
export const INSERT_RETRIES = 20;

/**
 * Creates the indexes. FerretDB 1.x has no partial indexes, so the one-open-alert rule is a
 * unique index over `open_key`, which holds `<project>:<fingerprint>` while the alert is
 * unresolved and the unique `closed:<alert id>` otherwise (never missing or null: MongoDB
 * counts missing values as equal nulls in a unique index, FerretDB does not; a value that is
 * always present behaves the same on both).
 */
export async function ensureAlertIndexes(db: Db): Promise<void> {
  const alerts = db.collection(COLLECTIONS.alerts);
  await alerts.createIndex({ project_id: 1, iid: 1 }, { unique: true, name: "project_iid" });
  await alerts.createIndex({ open_key: 1 }, { unique: true, name: "one_open_alert_per_fingerprint" });
  await alerts.createIndex({ create_op: 1 }, { unique: true, name: "create_op" });
  await alerts.createIndex({ applied_ops: 1 }, { name: "applied_ops" });
  await alerts.createIndex({ project_id: 1, created_at: -1 }, { name: "project_created" });
  await alerts.createIndex({ project_id: 1, iid: -1 }, { name: "project_iid_desc" });
  // The alerts list: its orders end with `_id` (ties), and severity's direction is inverted.
  await alerts.createIndex({ project_id: 1, created_at: -1, _id: -1 }, { name: "project_created_id" });
  await alerts.createIndex({ project_id: 1, status: 1, created_at: -1, _id: -1 }, { name: "project_status_created_id" });
  await alerts.createIndex({ project_id: 1, started_at: -1, _id: -1 }, { name: "project_started_id" });
  await alerts.createIndex({ project_id: 1, severity: 1, _id: -1 }, { name: "project_severity_id" });
  await db.collection(COLLECTIONS.activity).createIndex({ alert_id: 1, seq: 1 }, { name: "alert_seq" });
  const incidents = db.collection(COLLECTIONS.incidents);
  await incidents.createIndex({ project_id: 1, iid: 1 }, { unique: true, name: "project_iid" });
  await incidents.createIndex({ alert_id: 1 }, { unique: true, name: "one_incident_per_alert" });
  await db.collection(COLLECTIONS.idempotency).createIndex({ expires_at: 1 }, { name: "expires" });
  await db.collection(COLLECTIONS.processedJobs).createIndex({ at: 1 }, { name: "at" });
}

let lastSeq = 0;
/** Monotonic ordering number for activity entries written by this process (time-based across restarts). */
export function activitySeq(): number {
  lastSeq = Math.max(lastSeq + 1, Date.now() * 1000);
  return lastSeq;
}
