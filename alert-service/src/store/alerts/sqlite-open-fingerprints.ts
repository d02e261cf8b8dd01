import { prepared } from "@tocsin/store";
import type { Database } from "better-sqlite3";
import { RESOLVED } from "./codes.js";
import { KeyFilter } from "./key-filter.js";

/** Alerts written since the last merge, at most, before the next merge (one look-up table write per leaf, not per alert). */
const MERGE_FINGERPRINTS_AT = 65_536;

/** `alert_counters` row: every alert with an id up to it is merged (schema version 6). */
export const MERGED_UP_TO = "fingerprints_merged";

/** The reopen trigger's refusal while another alert of the fingerprint is open (schema version 6). */
export const REOPEN_REFUSED = "another alert of this fingerprint is open";

/** What the look-up reads of an alert row: the whole row, with the fields it checks. */
interface Row {
  id: number;
  project_id: number;
  fingerprint: string | null;
  status: number;
}

const perConnection = new WeakMap<Database, OpenFingerprints>();

const keyOf = (projectId: number, fingerprint: string) => `${projectId}\u0000${fingerprint}`;

/**
 * The one-open-alert rule's look-up on SQLite (schema version 6), in two parts, so that a new
 * alert writes no leaf of a B-tree keyed by its fingerprint (a hash: each new alert's key lands
 * on a leaf of its own, which was half the pages a new alert wrote and the cause of the intake's
 * decline as the store grows; bench/notes/2026-11-29-fingerprint-order.md):
 *
 * - **merged**: `alert_open_fingerprints`, keyed by (project, fingerprint), holds the open alerts
 *   with an id up to the `fingerprints_merged` counter. Triggers keep it: a resolve or a delete
 *   takes the alert out, a reopen puts it back (refused while another alert of the fingerprint is
 *   open, as the partial unique index before it refused).
 * - **pending**: the alerts after the counter, found through this map (rebuilt from the rows after
 *   the counter, and caught up with rows other connections wrote, before each look-up). Every
 *   `mergeAt` alerts their open fingerprints are written to the table in key order, in the
 *   transaction of the insert that reached the bound: each leaf once for many alerts.
 *
 * The map lists each key's alert ids, newest last, and a look-up reads their rows: an entry is
 * only a hint (an alert resolved or reopened since, an insert rolled back).
 */
export class OpenFingerprints {
  /**
   * The look-up of a connection, shared by every store on it: a store learns of other
   * connections' rows through `data_version`, which does not move for the connection's own.
   * The first store's `mergeAt` holds.
   */
  static of(db: Database, mergeAt = MERGE_FINGERPRINTS_AT): OpenFingerprints {
    const found = perConnection.get(db) ?? new OpenFingerprints(db, mergeAt);
    perConnection.set(db, found);
    return found;
  }

  private readonly pending = new Map<string, number[]>();
  /** The counter's value the map was built against (-1: not built). */
  private merged = -1;
  /** The highest alert id read into the map. */
  private seen = 0;
  /** `PRAGMA data_version` when the map was last caught up: it moves when another connection commits. */
  private version = -1;
  /** Moves with every change this store makes to the open set (an insert, a merge, a reopen). */
  private changes = 0;
  /**
   * The keys in the table, as far as this store knows (a Bloom filter: a new alert's key, in no
   * filter, is not looked up in the table). Built by a store that inserts (processing), at its
   * first insert and again when it holds twice the keys it was sized for; added to by its merges
   * and by the reopens logged in `alert_fingerprint_reopens`; dropped when another connection
   * merged (rebuilt at the next insert). A store that only looks up (the main thread's, for the
   * REST API) has none and reads the table.
   */
  private filter: KeyFilter | undefined;
  /** The last reopen read from the log. */
  private reopenSeq = 0;
  /** This store reopened an alert: the log is read at the next look-up. */
  private reopened = false;
  /** The last look-up that found nothing: the insert after it need not look again. */
  private lastMiss: { projectId: number; fingerprint: string; version: number; changes: number } | undefined;
  /**
   * Set while the connection holds the write lock of a batch (`held`, until `released`): no other
   * connection can commit meanwhile, so once caught up in it the map stays caught up, and the
   * look-ups after the first read neither the counter nor `data_version` (two of a new alert's
   * seven statements; bench/notes/2026-11-30-paired-ratios-and-one-catch-up.md).
   */
  private hold: { caughtUp: boolean } | undefined;

  private constructor(
    private readonly db: Database,
    private readonly mergeAt: number,
  ) {}

  /** The open alert of (project, fingerprint), if any. */
  find<R extends Row>(projectId: number, fingerprint: string): R | undefined {
    const found = this.lookUp<R>(projectId, fingerprint);
    this.lastMiss = found ? undefined : { projectId, fingerprint, version: this.version, changes: this.changes };
    return found;
  }

  /**
   * Whether (project, fingerprint) has an open alert; answered without a read when the last
   * look-up was of this key and found nothing, and nothing changed the open set since (no other
   * connection committed, this store changed nothing): processing looks an alert up, then inserts.
   */
  isOpen(projectId: number, fingerprint: string): boolean {
    const miss = this.lastMiss;
    if (
      miss &&
      miss.projectId === projectId &&
      miss.fingerprint === fingerprint &&
      miss.changes === this.changes &&
      miss.version === (this.caughtUpInHold() ? this.version : this.dataVersion())
    )
      return false;
    return this.find(projectId, fingerprint) !== undefined;
  }

  /**
   * The connection took the write lock (`BEGIN IMMEDIATE` of a batch): until `released`, the
   * first look-up catches up and the others rely on it. Any rollback must call `released`.
   */
  held(): void {
    this.hold = { caughtUp: false };
  }

  /** The write transaction taken in `held` ended (committed or rolled back). */
  released(): void {
    this.hold = undefined;
  }

  /**
   * Caught up inside the write transaction still held. Seen outside a transaction (rolled back,
   * by SQLite itself after an I/O error, say), the hold is over: dropped here, before anything
   * could begin another transaction without the lock this relied on.
   */
  private caughtUpInHold(): boolean {
    if (!this.hold) return false;
    if (!this.db.inTransaction) {
      this.hold = undefined;
      return false;
    }
    return this.hold.caughtUp && !this.reopened;
  }

  /** This store changed an alert's status (a reopen may make a fingerprint open again). */
  changed(): void {
    this.changes++;
    this.reopened = true;
  }

  private dataVersion(): number {
    return (prepared(this.db, "PRAGMA data_version").get() as { data_version: number }).data_version;
  }

  private lookUp<R extends Row>(projectId: number, fingerprint: string): R | undefined {
    this.catchUp();
    const key = keyOf(projectId, fingerprint);
    const merged =
      !this.filter || this.filter.has(key)
        ? (prepared(
            this.db,
            `SELECT a.* FROM alert_open_fingerprints f JOIN alerts a ON a.id = f.alert_id
            WHERE f.project_id = ? AND f.fingerprint = ? AND a.status <> ${RESOLVED}`,
          ).get(projectId, fingerprint) as R | undefined)
        : undefined;
    if (merged) return merged;
    const ids = this.pending.get(key);
    if (!ids) return undefined;
    const read = prepared(this.db, "SELECT * FROM alerts WHERE id = ?");
    let open: R | undefined;
    const kept = ids.filter((id) => {
      const row = read.get(id) as R | undefined;
      // A row gone or of another key (an insert rolled back, its id used again) is no hint.
      if (!row || row.project_id !== projectId || row.fingerprint !== fingerprint) return false;
      if (row.status !== RESOLVED) open = row;
      return true;
    });
    if (kept.length === 0) this.pending.delete(key);
    else if (kept.length !== ids.length) this.pending.set(key, kept);
    return open;
  }

  /**
   * An alert just inserted (in the caller's transaction), `open` with a fingerprint or not (a
   * resolved one, one without a fingerprint: counted towards the bound, so that the rows a store
   * reads when it opens and a reopen scans stay at most `mergeAt`); merges when the bound is reached.
   */
  added(id: number, open?: { projectId: number; fingerprint: string }): void {
    this.changes++;
    if (this.merged < 0) this.catchUp();
    if (open) {
      if (!this.filter) this.rebuildFilter();
      const key = keyOf(open.projectId, open.fingerprint);
      const ids = this.pending.get(key);
      if (ids) ids.push(id);
      else this.pending.set(key, [id]);
    }
    if (id - this.merged >= this.mergeAt) this.merge();
  }

  /**
   * The open fingerprints of the alerts after the counter written to the table, in key order, and
   * the counter moved to the newest alert; in the caller's transaction (rolled back with it: the
   * next look-up finds the counter as it was and rebuilds the map).
   */
  private merge(): void {
    const upTo = (prepared(this.db, "SELECT MAX(id) AS id FROM alerts").get() as { id: number | null }).id ?? 0;
    prepared(
      this.db,
      `INSERT INTO alert_open_fingerprints (project_id, fingerprint, alert_id)
        SELECT project_id, fingerprint, id FROM alerts NOT INDEXED
        WHERE id > ? AND id <= ? AND fingerprint IS NOT NULL AND status <> ${RESOLVED}
        ORDER BY project_id, fingerprint`,
    ).run(this.merged, upTo);
    prepared(this.db, "UPDATE alert_counters SET value = ? WHERE name = ?").run(upTo, MERGED_UP_TO);
    // The keys merged are among the map's (which also holds resolved ones: a filter may answer yes for those).
    const filter = this.filter;
    if (!filter || filter.added + this.pending.size > filter.capacity) this.rebuildFilter();
    else for (const key of this.pending.keys()) filter.add(key);
    this.pending.clear();
    this.merged = upTo;
    this.seen = upTo;
  }

  /**
   * The filter built from the table, sized for twice its keys (rebuilt when it holds more). The
   * log's last reopen is read first: a reopen committed meanwhile is in the table, and read from
   * the log again (a key added twice).
   */
  private rebuildFilter(): void {
    this.reopenSeq = (
      prepared(this.db, "SELECT COALESCE(MAX(seq), 0) AS seq FROM alert_fingerprint_reopens").get() as { seq: number }
    ).seq;
    const { n } = prepared(this.db, "SELECT COUNT(*) AS n FROM alert_open_fingerprints").get() as { n: number };
    this.filter = new KeyFilter(Math.max(2 * n, 2 * this.mergeAt, 65_536));
    const rows = prepared(this.db, "SELECT project_id, fingerprint FROM alert_open_fingerprints").raw(true);
    for (const [projectId, fingerprint] of rows.iterate() as Iterable<[number, string]>)
      this.filter.add(keyOf(projectId, fingerprint));
  }

  /**
   * The map brought up to the rows written since it was last read (by any connection): the rows
   * after it are read only when another connection committed since (this store's own inserts are
   * in the map already; one rolled back leaves a hint that matches no row).
   */
  private catchUp(): void {
    if (this.caughtUpInHold()) return;
    this.catchUpNow();
    if (this.hold && this.db.inTransaction) this.hold.caughtUp = true;
  }

  private catchUpNow(): void {
    const counter = prepared(this.db, "SELECT value FROM alert_counters WHERE name = ?").get(MERGED_UP_TO) as
      | { value: number }
      | undefined;
    const merged = counter?.value ?? 0;
    const version = this.dataVersion();
    if (merged !== this.merged) {
      this.pending.clear();
      this.merged = merged;
      this.seen = merged;
      this.filter = undefined;
    } else if (version === this.version && !this.reopened) return;
    this.version = version;
    this.reopened = false;
    const filter = this.filter;
    if (filter) {
      const reopens = prepared(
        this.db,
        "SELECT seq, project_id, fingerprint FROM alert_fingerprint_reopens WHERE seq > ? ORDER BY seq",
      ).all(this.reopenSeq) as Array<{ seq: number; project_id: number; fingerprint: string }>;
      for (const r of reopens) {
        filter.add(keyOf(r.project_id, r.fingerprint));
        this.reopenSeq = r.seq;
      }
    }
    const rows = prepared(this.db, "SELECT id, project_id, fingerprint FROM alerts WHERE id > ? ORDER BY id").all(
      this.seen,
    ) as Array<Pick<Row, "id" | "project_id" | "fingerprint">>;
    for (const row of rows) {
      this.seen = row.id;
      if (row.fingerprint === null) continue;
      const key = keyOf(row.project_id, row.fingerprint);
      const ids = this.pending.get(key);
      if (!ids) this.pending.set(key, [row.id]);
      else if (!ids.includes(row.id)) ids.push(row.id);
    }
  }
}
