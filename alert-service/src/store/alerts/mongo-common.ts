import type { MongoSequences } from "@tocsin/store";
import type { Db } from "mongodb";

export const COLLECTIONS = {
  alerts: "alerts",
  openAlerts: "open_alerts",
  activity: "alert_activity",
  incidents: "incidents",
  settings: "alert_settings",
  idempotency: "ingest_idempotency",
  processedJobs: "processed_jobs",
  jobStarts: "job_starts",
  counters: "counters",
} as const;

/**
 * Ids taken from a sequence a block at a time (two round trips per `size` ids: the candidate and
 * its claim, so that two processes never share a block, even on FerretDB). Ids are internal:
 * the gaps a restart leaves are never seen (iids, which users see, are taken one by one).
 */
export class IdBlocks {
  private next_ = 0;
  private last = -1;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly sequences: MongoSequences,
    private readonly name: string,
    private readonly size = 100,
  ) {}

  async next(): Promise<number> {
    while (this.next_ > this.last) {
      this.pending ??= this.sequences.reserveBlock(this.name, this.size).then(
        (last) => {
          this.next_ = last - this.size + 1;
          this.last = last;
          this.pending = undefined;
        },
        (err: unknown) => {
          this.pending = undefined;
          throw err;
        },
      );
      await this.pending;
    }
    return this.next_++;
  }
}

/** `isFerretDb`'s answers, one look per database handle (the stores and the start-up warning share it). */
const serverKinds = new WeakMap<Db, Promise<boolean>>();

/**
 * True when the server is FerretDB (its `buildInfo` says so). FerretDB 1.x pushes only a bare
 * `{ _id: <string> }` filter of a `find` down to its backend; any other filter, and every update,
 * reads the whole collection (docs/architecture.md).
 */
export function isFerretDb(db: Db): Promise<boolean> {
  let answer = serverKinds.get(db);
  if (!answer) {
    answer = db.command({ buildInfo: 1 }).then((info) => typeof info.ferretdbVersion === "string");
    // A failed look is not remembered: the next caller asks again.
    answer.catch(() => serverKinds.delete(db));
    serverKinds.set(db, answer);
  }
  return answer;
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
  await ensureCollections(db, [...Object.values(COLLECTIONS), `${COLLECTIONS.counters}_claims`]);
  const alerts = db.collection(COLLECTIONS.alerts);
  await alerts.createIndex({ project_id: 1, iid: 1 }, { unique: true, name: "project_iid" });
  await alerts.createIndex({ open_key: 1 }, { unique: true, name: "one_open_alert_per_fingerprint" });
  await alerts.createIndex({ create_op: 1 }, { unique: true, name: "create_op" });
  await alerts.createIndex({ applied_ops: 1 }, { name: "applied_ops" });
  await alerts.createIndex({ project_id: 1, created_at: -1 }, { name: "project_created" });
  await alerts.createIndex({ project_id: 1, iid: -1 }, { name: "project_iid_desc" });
  // The alerts list: its orders end with `id` (ties), and severity's direction is inverted.
  await alerts.createIndex({ project_id: 1, created_at: -1, id: -1 }, { name: "project_created_aid" });
  await alerts.createIndex({ project_id: 1, status: 1, created_at: -1, id: -1 }, { name: "project_status_created_aid" });
  await alerts.createIndex({ project_id: 1, started_at: -1, id: -1 }, { name: "project_started_aid" });
  await alerts.createIndex({ project_id: 1, severity: 1, id: -1 }, { name: "project_severity_aid" });
  await db.collection(COLLECTIONS.activity).createIndex({ alert_id: 1, seq: 1 }, { name: "alert_seq" });
  const incidents = db.collection(COLLECTIONS.incidents);
  await incidents.createIndex({ project_id: 1, iid: 1 }, { unique: true, name: "project_iid" });
  await incidents.createIndex({ alert_id: 1 }, { unique: true, name: "one_incident_per_alert" });
  await db.collection(COLLECTIONS.idempotency).createIndex({ expires_at: 1 }, { name: "expires" });
  await db.collection(COLLECTIONS.processedJobs).createIndex({ at: 1 }, { name: "at" });
  await db.collection(COLLECTIONS.jobStarts).createIndex({ at: 1 }, { name: "at" });
}

/**
 * Creates the collections of `names` that do not exist yet, rather than at their first insert,
 * so that scripts/ferretdb-*-id-indexes.*, run after alert-service's first start, find every
 * table of the hot path (docs/operations.md). Another replica may create one at the same moment.
 */
async function ensureCollections(db: Db, names: string[]): Promise<void> {
  const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  for (const name of names.filter((n) => !existing.has(n))) {
    try {
      await db.createCollection(name);
    } catch (err) {
      if ((err as { code?: unknown }).code !== NAMESPACE_EXISTS) throw err;
    }
  }
}
const NAMESPACE_EXISTS = 48;

let lastSeq = 0;
/** Monotonic ordering number for activity entries written by this process (time-based across restarts). */
export function activitySeq(): number {
  lastSeq = Math.max(lastSeq + 1, Date.now() * 1000);
  return lastSeq;
}
