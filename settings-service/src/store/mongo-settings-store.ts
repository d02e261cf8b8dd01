import { setTimeout as delay } from "node:timers/promises";
import { KeyedLock, randomHex, unavailable } from "@tocsin/core";
import { isDuplicateKey } from "@tocsin/store";
import { type Collection, type Db, MongoClient } from "mongodb";
import type { EventsChange, Level } from "../domain/events.js";
import type { SettingChange, SettingKey, SettingsStore, SourceType, StoredSetting } from "../domain/ports.js";

interface SettingDoc {
  userId: number;
  sourceType: SourceType;
  sourceId: number;
  level: Level;
  notificationEmail?: string;
  events: EventsChange;
  createdAt: Date;
  updatedAt: Date;
}

/** A write in progress on one setting, by one process (`_id`: `<user>:<source type>:<source id>`). */
interface LockDoc {
  _id: string;
  owner: string;
  expiresAt: Date;
}

const COLLECTION = "notification_settings";
const LOCKS = "notification_setting_locks";
/** A lock older than this is taken to belong to a process that died while writing. */
const LEASE_MS = 30_000;
/** How long a write waits for other processes' writes of the same setting (it may outlast the caller's deadline; the write then still lands). */
const WAIT_MS = 10_000;

function fromDoc(doc: SettingDoc): StoredSetting {
  return {
    userId: doc.userId,
    sourceType: doc.sourceType,
    sourceId: doc.sourceId,
    level: doc.level,
    notificationEmail: doc.notificationEmail ?? undefined,
    events: doc.events ?? {},
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/**
 * SettingsStore on MongoDB (or FerretDB): one document per (user, source), unique index.
 *
 * Several settings-service replicas may write one setting at once. MongoDB's update operators
 * are atomic; FerretDB 1.x's are not (an update rewrites the whole document from an unlocked
 * read, on SQLite and PostgreSQL alike, so a concurrent write of another field is lost), and
 * neither is a conditional update there. What every MongoDB-protocol server does atomically is
 * an insert under a unique `_id`, so a write holds the setting's lock document in
 * `notification_setting_locks` (inserted by exactly one writer; deleted when the write is done)
 * around its read-modify-write. Writes of one process queue in memory first (KeyedLock), so
 * only writers in different processes wait on each other. A lock left by a process that died
 * mid-write is broken after LEASE_MS, by the one waiter that inserts the break ticket for it.
 * The lock collection holds only writes in progress, so its inserts and deletes stay cheap
 * on FerretDB, where every delete reads its whole collection.
 */
export class MongoSettingsStore implements SettingsStore {
  private readonly lock = new KeyedLock();

  private constructor(
    private readonly client: MongoClient | undefined,
    private readonly db: Db,
    private readonly settings: Collection<SettingDoc>,
    private readonly locks: Collection<LockDoc>,
  ) {}

  /** Connects (when given a URL) and creates the indexes. */
  static async open(urlOrDb: string | Db, dbName?: string): Promise<MongoSettingsStore> {
    const client =
      typeof urlOrDb === "string" ? await new MongoClient(urlOrDb, { serverSelectionTimeoutMS: 5000 }).connect() : undefined;
    const db = client ? client.db(dbName) : (urlOrDb as Db);
    const settings = db.collection<SettingDoc>(COLLECTION);
    await settings.createIndex({ userId: 1, sourceType: 1, sourceId: 1 }, { unique: true, name: "user_source_unique" });
    await settings.createIndex({ sourceType: 1, sourceId: 1 }, { name: "source" });
    return new MongoSettingsStore(client, db, settings, db.collection<LockDoc>(LOCKS));
  }

  async get(key: SettingKey): Promise<StoredSetting | undefined> {
    const doc = await this.settings.findOne(key, { projection: { _id: 0 } });
    return doc ? fromDoc(doc) : undefined;
  }

  apply(key: SettingKey, change: SettingChange): Promise<StoredSetting> {
    const id = `${key.userId}:${key.sourceType}:${key.sourceId}`;
    return this.lock.run(id, () => this.acrossProcesses(id, () => this.upsert(key, change)));
  }

  /** Runs `write` holding the setting's lock document, which one writer of all processes holds at a time. */
  private async acrossProcesses<T>(id: string, write: () => Promise<T>): Promise<T> {
    const owner = randomHex(8);
    const giveUpAt = Date.now() + WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.locks.insertOne({ _id: id, owner, expiresAt: new Date(Date.now() + LEASE_MS) });
        break;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const held = await this.locks.findOne({ _id: id });
      if (held && held.expiresAt.getTime() < Date.now()) await this.breakLock(held);
      else if (Date.now() > giveUpAt) throw unavailable("SETTING_BUSY", "the notification setting is being changed; try again");
      else await delay(Math.min(2 + attempt * 2, 25) * (0.5 + Math.random()));
    }
    try {
      return await write();
    } finally {
      await this.locks.deleteOne({ _id: id, owner }).catch(() => undefined);
    }
  }

  /**
   * Removes a lock whose writer is presumed dead. Of all the waiters that saw it expired, only the
   * one that inserts its break ticket (unique per lock owner) deletes it, so no waiter can delete
   * a lock taken anew in the meantime.
   */
  private async breakLock(held: LockDoc): Promise<void> {
    try {
      await this.locks.insertOne({ _id: `${held._id}#broken:${held.owner}`, owner: "", expiresAt: held.expiresAt });
    } catch (err) {
      if (isDuplicateKey(err)) return;
      throw err;
    }
    await this.locks.deleteOne({ _id: held._id, owner: held.owner });
  }

  private async upsert(key: SettingKey, change: SettingChange): Promise<StoredSetting> {
    const set: Record<string, unknown> = { updatedAt: change.at };
    const onInsert: Record<string, unknown> = { createdAt: change.at };
    if (change.level !== undefined) set.level = change.level;
    else onInsert.level = change.defaultLevel;
    if (change.notificationEmail !== undefined) set.notificationEmail = change.notificationEmail;
    const eventNames = Object.keys(change.events) as Array<keyof EventsChange>;
    for (const name of eventNames) set[`events.${name}`] = change.events[name];
    if (eventNames.length === 0) onInsert.events = {};
    // Two concurrent first writes may both try to insert; the unique index rejects one, and
    // its retry finds the document and updates it.
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await this.settings.findOneAndUpdate(
          key,
          { $set: set, $setOnInsert: onInsert },
          { upsert: true, returnDocument: "after" },
        );
        if (!doc) throw new Error("upsert returned no document");
        return fromDoc(doc);
      } catch (err) {
        if (!isDuplicateKey(err) || attempt >= 3) throw err;
      }
    }
  }

  async listForUsers(userIds: readonly number[], projectId: number, groupIds: readonly number[]): Promise<StoredSetting[]> {
    if (userIds.length === 0) return [];
    const docs = await this.settings
      .find(
        {
          userId: { $in: [...userIds] },
          $or: [
            { sourceType: "global", sourceId: 0 },
            { sourceType: "project", sourceId: projectId },
            { sourceType: "group", sourceId: { $in: [...groupIds] } },
          ],
        },
        { projection: { _id: 0 } },
      )
      .toArray();
    return docs.map(fromDoc);
  }

  async listGlobal(userIds: readonly number[]): Promise<StoredSetting[]> {
    if (userIds.length === 0) return [];
    const docs = await this.settings
      .find({ userId: { $in: [...userIds] }, sourceType: "global", sourceId: 0 }, { projection: { _id: 0 } })
      .toArray();
    return docs.map(fromDoc);
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}
