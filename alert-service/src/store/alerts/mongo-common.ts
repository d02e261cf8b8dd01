export { KeyedLock } from "@tocsin/core";
import type { Collection, Db, Document } from "mongodb";

export const COLLECTIONS = {
  alerts: "alerts",
  activity: "alert_activity",
  incidents: "incidents",
  settings: "alert_settings",
  idempotency: "ingest_idempotency",
  processedJobs: "processed_jobs",
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
 * The next number after the highest `field` among documents matching `filter`. Callers insert
 * under a unique index and retry on conflict: unlike a `$inc` counter this stays correct on
 * FerretDB 1.x, which does not apply concurrent updates of one document atomically.
 */
export async function nextNumber<T extends Document>(
  col: Collection<T>,
  field: string,
  filter: Record<string, unknown> = {},
): Promise<number> {
  const [top] = await (col as unknown as Collection<Document>)
    .find(filter, { projection: { [field]: 1 } })
    .sort({ [field]: -1 })
    .limit(1)
    .toArray();
  return ((top?.[field] as number | undefined) ?? 0) + 1;
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
