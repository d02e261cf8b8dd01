import { closeSync, fdatasync, openSync } from "node:fs";
import { isBusy, tryWrite, WRITE_LOCK_TIMEOUT_MS } from "@tocsin/store";
import type { Database as Db } from "better-sqlite3";
import type { QueuedJob } from "../queue.js";
import type { SyncWal } from "./options.js";
import { insertAlone, insertPacked } from "./packs.js";
import { queueUnavailable } from "./schema.js";

interface PendingAdd {
  jobs: QueuedJob[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: adds that arrive in the same turn of the event loop are written in one
 * transaction, and each resolves only once that commit is durable (its WAL synced, when `sync`
 * is given); `committed` is then told the lanes the jobs went to. While another connection (the
 * processing thread ending its batch) holds the file's write lock, the commit is tried again on
 * a timer rather than in SQLite's busy handler, which would sleep the event loop; adds arriving
 * meanwhile join it, after the earlier ones.
 */
export class GroupCommit {
  private batch: PendingAdd[] = [];
  /** One transaction for every job of a group commit (created once: `db.transaction` is not free). */
  private readonly insertAll: { immediate(items: Array<{ jobs: QueuedJob[] }>): void };
  /** Committed adds waiting for the WAL sync that makes them durable. */
  private unsynced: PendingAdd[] = [];
  private syncing: Promise<void> | undefined;
  private readonly syncWal: SyncWal | undefined;
  private walFd: number | undefined;
  /** When the adds of `batch` first found the write lock taken (undefined: not waiting for it). */
  private lockedSince: number | undefined;

  constructor(
    private readonly db: Db,
    private readonly file: string,
    sync: SyncWal | "fdatasync" | undefined,
    private readonly committed: (lanes: number[]) => void,
    /** Each lane's undelayed jobs of a commit as one row (packs.ts; ordered queues). */
    packs: boolean,
  ) {
    this.syncWal = sync === "fdatasync" ? (done) => this.fdatasyncWal(done) : sync;
    this.insertAll = db.transaction((items: Array<{ jobs: QueuedJob[] }>) => {
      const now = Date.now();
      if (packs) insertPacked(db, items.length === 1 ? (items[0]?.jobs ?? []) : items.flatMap((item) => item.jobs), now);
      else for (const { jobs } of items) for (const job of jobs) insertAlone(db, job, now);
    });
  }

  /** Joins the group commit of this turn of the event loop; the jobs are inserted in array order. */
  add(jobs: QueuedJob[]): Promise<void> {
    if (jobs.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.batch.push({ jobs, resolve, reject });
      if (this.batch.length === 1 && this.lockedSince === undefined) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const items = this.batch;
    try {
      // IMMEDIATE: packing reads (known ids) before it writes, and a deferred transaction that
      // read could not then write after the other thread's connection committed (SQLITE_BUSY).
      tryWrite(this.db, () => this.insertAll.immediate(items));
    } catch (err) {
      const since = this.lockedSince ?? Date.now();
      if (isBusy(err) && Date.now() - since < WRITE_LOCK_TIMEOUT_MS) {
        this.lockedSince = since;
        setTimeout(() => this.flush(), 1);
        return;
      }
      this.lockedSince = undefined;
      this.batch = [];
      for (const item of items) item.reject(queueUnavailable(err));
      return;
    }
    this.lockedSince = undefined;
    this.batch = [];
    if (!this.syncWal) {
      this.settle(items);
      return;
    }
    this.unsynced.push(...items);
    if (!this.syncing) this.syncing = this.sync();
  }

  /**
   * One WAL sync for every add committed before it starts; adds committed while it runs wait
   * for the next (a group commit of syncs, as of transactions).
   */
  private async sync(): Promise<void> {
    const { syncWal } = this;
    while (syncWal && this.unsynced.length) {
      const items = this.unsynced;
      this.unsynced = [];
      const err = await new Promise<Error | null | undefined>((resolve) => syncWal(resolve));
      if (err) for (const item of items) item.reject(queueUnavailable(err));
      else this.settle(items);
    }
    this.syncing = undefined;
  }

  private fdatasyncWal(done: (err?: Error | null) => void): void {
    try {
      // The WAL exists once the connection has committed, and stays while it is open.
      this.walFd ??= openSync(`${this.file}-wal`, "r");
    } catch (err) {
      done(err as Error);
      return;
    }
    fdatasync(this.walFd, done);
  }

  /** The adds of a durable commit resolve, and the lanes they went to are told. */
  private settle(items: PendingAdd[]): void {
    const lanes = new Set<number>();
    for (const item of items) {
      item.resolve();
      for (const job of item.jobs) lanes.add(job.lane);
    }
    this.committed([...lanes]);
  }

  /** Waits for the sync under way, then lets go of the WAL file. */
  async close(): Promise<void> {
    await this.syncing;
    if (this.walFd !== undefined) closeSync(this.walFd);
  }
}
