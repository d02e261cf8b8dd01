import { KeyedLock } from "@tocsin/core";
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

const COLLECTION = "notification_settings";

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
 * Writes to one setting are serialised in-process (see KeyedLock): MongoDB's update operators
 * are atomic, FerretDB 1.x's are not.
 */
export class MongoSettingsStore implements SettingsStore {
  private readonly lock = new KeyedLock();

  private constructor(
    private readonly client: MongoClient | undefined,
    private readonly db: Db,
    private readonly settings: Collection<SettingDoc>,
  ) {}

  /** Connects (when given a URL) and creates the indexes. */
  static async open(urlOrDb: string | Db, dbName?: string): Promise<MongoSettingsStore> {
    const client =
      typeof urlOrDb === "string" ? await new MongoClient(urlOrDb, { serverSelectionTimeoutMS: 5000 }).connect() : undefined;
    const db = client ? client.db(dbName) : (urlOrDb as Db);
    const settings = db.collection<SettingDoc>(COLLECTION);
    await settings.createIndex({ userId: 1, sourceType: 1, sourceId: 1 }, { unique: true, name: "user_source_unique" });
    await settings.createIndex({ sourceType: 1, sourceId: 1 }, { name: "source" });
    return new MongoSettingsStore(client, db, settings);
  }

  async get(key: SettingKey): Promise<StoredSetting | undefined> {
    const doc = await this.settings.findOne(key, { projection: { _id: 0 } });
    return doc ? fromDoc(doc) : undefined;
  }

  apply(key: SettingKey, change: SettingChange): Promise<StoredSetting> {
    return this.lock.run(`${key.userId}:${key.sourceType}:${key.sourceId}`, () => this.upsert(key, change));
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

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}
