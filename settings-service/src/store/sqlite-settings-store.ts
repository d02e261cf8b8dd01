import { openSqlite, prepared } from "@tocsin/store";
import type Database from "better-sqlite3";
import type { EventsChange, Level } from "../domain/events.js";
import type { SettingChange, SettingKey, SettingsStore, SourceType, StoredSetting } from "../domain/ports.js";

interface Row {
  user_id: number;
  source_type: SourceType;
  source_id: number;
  level: Level;
  notification_email: string | null;
  events: string;
  created_at: string;
  updated_at: string;
}

// One row per (user, source): the primary key is the uniqueness rule.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS notification_settings (
  user_id INTEGER NOT NULL,
  source_type TEXT NOT NULL CHECK (source_type IN ('global', 'group', 'project')),
  source_id INTEGER NOT NULL,
  level TEXT NOT NULL,
  notification_email TEXT,
  events TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, source_type, source_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS notification_settings_source ON notification_settings (source_type, source_id);
`;

function fromRow(row: Row): StoredSetting {
  return {
    userId: row.user_id,
    sourceType: row.source_type,
    sourceId: row.source_id,
    level: row.level,
    notificationEmail: row.notification_email ?? undefined,
    events: JSON.parse(row.events) as EventsChange,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** SettingsStore on an embedded SQLite file (WAL), or `:memory:` in tests. */
export class SqliteSettingsStore implements SettingsStore {
  private readonly db: Database.Database;
  private readonly selectOne: Database.Statement<[number, string, number], Row>;
  private readonly insert: Database.Statement<Row>;
  private readonly update: Database.Statement<Row>;
  private readonly selectMany: Database.Statement<{ users: string; project: number; groups: string }, Row>;
  private readonly selectGlobal: Database.Statement<[string], Row>;
  private readonly applyTx: (key: SettingKey, change: SettingChange) => StoredSetting;

  constructor(file: string) {
    this.db = openSqlite(file);
    this.db.exec(SCHEMA);
    this.selectOne = this.db.prepare(
      "SELECT * FROM notification_settings WHERE user_id = ? AND source_type = ? AND source_id = ?",
    );
    this.insert = this.db.prepare(
      `INSERT INTO notification_settings (user_id, source_type, source_id, level, notification_email, events, created_at, updated_at)
       VALUES (@user_id, @source_type, @source_id, @level, @notification_email, @events, @created_at, @updated_at)`,
    );
    this.update = this.db.prepare(
      `UPDATE notification_settings SET level = @level, notification_email = @notification_email, events = @events, updated_at = @updated_at
       WHERE user_id = @user_id AND source_type = @source_type AND source_id = @source_id`,
    );
    this.selectMany = this.db.prepare(
      `SELECT * FROM notification_settings
       WHERE user_id IN (SELECT value FROM json_each(@users))
         AND ((source_type = 'global' AND source_id = 0)
           OR (source_type = 'project' AND source_id = @project)
           OR (source_type = 'group' AND source_id IN (SELECT value FROM json_each(@groups))))`,
    );
    this.selectGlobal = this.db.prepare(
      `SELECT * FROM notification_settings
       WHERE user_id IN (SELECT value FROM json_each(?)) AND source_type = 'global' AND source_id = 0`,
    );
    // Read-merge-write inside one immediate transaction: atomic against other connections too.
    this.applyTx = this.db.transaction((key: SettingKey, change: SettingChange) => this.merge(key, change)).immediate as never;
  }

  private merge(key: SettingKey, change: SettingChange): StoredSetting {
    const existing = this.selectOne.get(key.userId, key.sourceType, key.sourceId);
    const at = change.at.toISOString();
    const events = { ...(existing ? (JSON.parse(existing.events) as EventsChange) : {}), ...change.events };
    const row: Row = {
      user_id: key.userId,
      source_type: key.sourceType,
      source_id: key.sourceId,
      level: change.level ?? existing?.level ?? change.defaultLevel,
      notification_email: change.notificationEmail ?? existing?.notification_email ?? null,
      events: JSON.stringify(events),
      created_at: existing?.created_at ?? at,
      updated_at: at,
    };
    if (existing) this.update.run(row);
    else this.insert.run(row);
    return fromRow(row);
  }

  async get(key: SettingKey): Promise<StoredSetting | undefined> {
    const row = this.selectOne.get(key.userId, key.sourceType, key.sourceId);
    return row ? fromRow(row) : undefined;
  }

  async apply(key: SettingKey, change: SettingChange): Promise<StoredSetting> {
    return this.applyTx(key, change);
  }

  async listForUsers(userIds: readonly number[], projectId: number, groupIds: readonly number[]): Promise<StoredSetting[]> {
    if (userIds.length === 0) return [];
    return this.selectMany
      .all({ users: JSON.stringify(userIds), project: projectId, groups: JSON.stringify(groupIds) })
      .map(fromRow);
  }

  async listGlobal(userIds: readonly number[]): Promise<StoredSetting[]> {
    if (userIds.length === 0) return [];
    return this.selectGlobal.all(JSON.stringify(userIds)).map(fromRow);
  }

  async ping(): Promise<void> {
    prepared(this.db, "SELECT 1").get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
