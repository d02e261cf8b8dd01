import { isDuplicateKey } from "@tocsin/store";
import { type AnyBulkWriteOperation, type Collection, type Db, MongoClient } from "mongodb";
import type { EventName, EventsChange, Level } from "../domain/events.js";
import type { SettingChange, SettingKey, SettingsStore, SourceType, StoredSetting } from "../domain/ports.js";

/**
 * One field of one setting: `created` (its creation: the default level and when), `level`,
 * `email` or `event:<name>`. `_id` is `<user>:<source type>:<source id>:<field>`.
 */
interface FieldDoc {
  _id: string;
  userId: number;
  sourceType: SourceType;
  sourceId: number;
  field: string;
  value: string | boolean;
  at: Date;
}

/** The layout before settings were split into fields: one document per setting. */
interface LegacyDoc {
  userId: number;
  sourceType: SourceType;
  sourceId: number;
  level: Level;
  notificationEmail?: string;
  events?: EventsChange;
  createdAt: Date;
  updatedAt: Date;
}

const COLLECTION = "notification_setting_fields";
const LEGACY_COLLECTION = "notification_settings";
const EVENT = "event:";

const settingId = (key: SettingKey) => `${key.userId}:${key.sourceType}:${key.sourceId}`;
const keyOf = (key: SettingKey): SettingKey => ({ userId: key.userId, sourceType: key.sourceType, sourceId: key.sourceId });

/** The field documents a change writes (every field it sets, nothing else). */
function fieldsOf(change: Pick<SettingChange, "level" | "notificationEmail" | "events">): Array<[string, string | boolean]> {
  const fields: Array<[string, string | boolean]> = [];
  if (change.level !== undefined) fields.push(["level", change.level]);
  if (change.notificationEmail !== undefined) fields.push(["email", change.notificationEmail]);
  for (const [name, value] of Object.entries(change.events)) if (value !== undefined) fields.push([`${EVENT}${name}`, value]);
  return fields;
}

/** Folds the field documents of settings into settings (those without a `created` document do not exist yet). */
function fold(docs: readonly FieldDoc[]): StoredSetting[] {
  const byId = new Map<string, { created?: FieldDoc; fields: FieldDoc[] }>();
  for (const doc of docs) {
    const id = doc._id.slice(0, doc._id.length - doc.field.length - 1);
    const entry = byId.get(id) ?? { fields: [] };
    if (doc.field === "created") entry.created = doc;
    else entry.fields.push(doc);
    byId.set(id, entry);
  }
  const settings: StoredSetting[] = [];
  for (const { created, fields } of byId.values()) {
    if (!created) continue;
    const setting: StoredSetting = {
      userId: created.userId,
      sourceType: created.sourceType,
      sourceId: created.sourceId,
      level: created.value as Level,
      notificationEmail: undefined,
      events: {},
      createdAt: created.at,
      updatedAt: created.at,
    };
    for (const doc of fields) {
      if (doc.field === "level") setting.level = doc.value as Level;
      else if (doc.field === "email") setting.notificationEmail = doc.value as string;
      else setting.events[doc.field.slice(EVENT.length) as EventName] = doc.value as boolean;
      if (doc.at > setting.updatedAt) setting.updatedAt = doc.at;
    }
    settings.push(setting);
  }
  return settings;
}

/**
 * SettingsStore on MongoDB (or FerretDB), safe with several settings-service replicas: every
 * field of a setting is its own document (`created`, `level`, `email`, `event:<name>`), so two
 * writes of different fields never touch one document, and a write of one field replaces that
 * field's document whole (last writer wins). Nothing relies on an update operator being atomic
 * (FerretDB 1.x's are not, on SQLite or PostgreSQL) or on an in-process lock: a setting comes into
 * existence by inserting its `created` document under its unique `_id`, which exactly one of
 * racing inserts wins on every MongoDB-protocol server. `updatedAt` is the time of the latest
 * field written.
 */
export class MongoSettingsStore implements SettingsStore {
  private constructor(
    private readonly client: MongoClient | undefined,
    private readonly db: Db,
    private readonly fields: Collection<FieldDoc>,
  ) {}

  /** Connects (when given a URL), creates the index and moves settings stored in the old layout. */
  static async open(urlOrDb: string | Db, dbName?: string): Promise<MongoSettingsStore> {
    const client =
      typeof urlOrDb === "string" ? await new MongoClient(urlOrDb, { serverSelectionTimeoutMS: 5000 }).connect() : undefined;
    const db = client ? client.db(dbName) : (urlOrDb as Db);
    const fields = db.collection<FieldDoc>(COLLECTION);
    await fields.createIndex({ userId: 1, sourceType: 1, sourceId: 1 }, { name: "setting" });
    const store = new MongoSettingsStore(client, db, fields);
    await store.migrateLegacy();
    return store;
  }

  async get(key: SettingKey): Promise<StoredSetting | undefined> {
    return fold(await this.fields.find(keyOf(key)).toArray())[0];
  }

  async apply(key: SettingKey, change: SettingChange): Promise<StoredSetting> {
    await this.create(key, change.defaultLevel, change.at);
    const ops: AnyBulkWriteOperation<FieldDoc>[] = fieldsOf(change).map(([field, value]) => ({
      updateOne: {
        filter: { _id: `${settingId(key)}:${field}` },
        update: { $set: { ...keyOf(key), field, value, at: change.at } },
        upsert: true,
      },
    }));
    // Racing first writes of one field may both insert: the unique _id rejects one, and the
    // retry updates the document the other inserted.
    for (let attempt = 0; ops.length; attempt++) {
      try {
        await this.fields.bulkWrite(ops, { ordered: false });
        break;
      } catch (err) {
        if (!isDuplicateKey(err) || attempt >= 3) throw err;
      }
    }
    const stored = await this.get(key);
    if (!stored) throw new Error("setting vanished after its write");
    return stored;
  }

  async listForUsers(userIds: readonly number[], projectId: number, groupIds: readonly number[]): Promise<StoredSetting[]> {
    if (userIds.length === 0) return [];
    const docs = await this.fields
      .find({
        userId: { $in: [...userIds] },
        $or: [
          { sourceType: "global", sourceId: 0 },
          { sourceType: "project", sourceId: projectId },
          { sourceType: "group", sourceId: { $in: [...groupIds] } },
        ],
      })
      .toArray();
    return fold(docs);
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client?.close();
  }

  /** Inserts the setting's `created` document unless it exists (exactly one racing insert wins). */
  private async create(key: SettingKey, level: Level, at: Date): Promise<void> {
    try {
      await this.fields.insertOne({ _id: `${settingId(key)}:created`, ...keyOf(key), field: "created", value: level, at });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /**
   * Settings stored one document per setting (before the split) become field documents; a field
   * already written in the new layout is newer and kept. Idempotent, so replicas starting
   * together may both run it.
   */
  private async migrateLegacy(): Promise<void> {
    const legacy = this.db.collection<LegacyDoc>(LEGACY_COLLECTION);
    for (const doc of await legacy.find({}).toArray()) {
      const key: SettingKey = { userId: doc.userId, sourceType: doc.sourceType, sourceId: doc.sourceId };
      await this.create(key, doc.level, doc.createdAt);
      const fields = fieldsOf({
        level: doc.level,
        notificationEmail: doc.notificationEmail ?? undefined,
        events: doc.events ?? {},
      });
      for (const [field, value] of fields) {
        try {
          await this.fields.insertOne({ _id: `${settingId(key)}:${field}`, ...key, field, value, at: doc.updatedAt });
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      }
      await legacy.deleteOne({ _id: doc._id });
    }
  }
}
