import { alreadyExists } from "@tocsin/core";
import { isDuplicateKey, prepared, writeWhenFree } from "@tocsin/store";
import type Database from "better-sqlite3";
import type { DestinationStore } from "../../domain/channels/ports.js";
import { type DestinationColumns, fromColumns, patchColumns, uniqueKeyOf } from "./codec.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS channel_destinations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('slack', 'mattermost', 'microsoft-teams', 'hook')),
  unique_key TEXT NOT NULL,
  url TEXT NOT NULL,
  token TEXT,
  signing_secret TEXT,
  previous_signing_secret TEXT,
  previous_signing_secret_expires_at INTEGER,
  username TEXT NOT NULL,
  channel TEXT NOT NULL,
  alert_channel TEXT NOT NULL,
  incident_channel TEXT NOT NULL,
  alert_events INTEGER NOT NULL,
  incident_events INTEGER NOT NULL,
  enable_ssl_verification INTEGER NOT NULL,
  signing INTEGER NOT NULL,
  disabled INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project_id, unique_key)
);`;

const BOOLEANS = ["alert_events", "incident_events", "enable_ssl_verification", "signing", "disabled"] as const;
const DATES = ["created_at", "updated_at"] as const;
/** Added after the first release: tables created before get them on open. */
const ADDED = ["previous_signing_secret TEXT", "previous_signing_secret_expires_at INTEGER"];

type Row = Record<string, unknown> & { id: number };

function toRecord(row: Row) {
  const c = { ...row } as Record<string, unknown>;
  for (const b of BOOLEANS) c[b] = row[b] === 1;
  for (const d of DATES) c[d] = new Date(row[d] as number);
  const expires = row.previous_signing_secret_expires_at;
  c.previous_signing_secret_expires_at = typeof expires === "number" ? new Date(expires) : null;
  return fromColumns(row.id, c as unknown as DestinationColumns);
}

/** SQLite values of some columns (booleans as 0/1, dates as ms). */
function toSql(columns: Partial<DestinationColumns>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(columns))
    out[k] = typeof v === "boolean" ? (v ? 1 : 0) : v instanceof Date ? v.getTime() : v;
  return out;
}

function duplicate(err: unknown): never {
  if (isDuplicateKey(err)) throw alreadyExists("DESTINATION_EXISTS", "Integration already exists");
  throw err;
}

/** Destinations in the embedded SQLite database (`channel_destinations`). */
export function createSqliteDestinationStore(db: Database.Database): DestinationStore {
  db.exec(SCHEMA);
  const columns = db.prepare("PRAGMA table_info(channel_destinations)").all() as Array<{ name: string }>;
  for (const added of ADDED)
    if (!columns.some((c) => c.name === added.split(" ")[0])) db.exec(`ALTER TABLE channel_destinations ADD COLUMN ${added}`);
  const one = (sql: string, ...args: unknown[]) => {
    const row = prepared(db, sql).get(...args) as Row | undefined;
    return row ? toRecord(row) : undefined;
  };
  return {
    async insert(input) {
      const columns = toSql({
        project_id: input.projectId,
        kind: input.kind,
        unique_key: uniqueKeyOf(input.kind),
        url: input.url,
        token: input.token,
        signing_secret: input.signingSecret,
        username: input.username,
        channel: input.channel,
        alert_channel: input.alertChannel,
        incident_channel: input.incidentChannel,
        alert_events: input.alertEvents,
        incident_events: input.incidentEvents,
        enable_ssl_verification: input.enableSslVerification,
        signing: input.signing,
        disabled: false,
        created_at: input.createdAt,
        updated_at: input.createdAt,
      });
      const names = Object.keys(columns);
      try {
        const sql = `INSERT INTO channel_destinations (${names.join(", ")}) VALUES (${names.map((n) => `@${n}`).join(", ")}) RETURNING *`;
        const insert = prepared(db, sql);
        return toRecord((await writeWhenFree(db, () => insert.get(columns))) as Row);
      } catch (err) {
        return duplicate(err);
      }
    },
    async get(projectId, id) {
      return one("SELECT * FROM channel_destinations WHERE project_id = ? AND id = ?", projectId, id);
    },
    async chat(projectId, kind) {
      return one("SELECT * FROM channel_destinations WHERE project_id = ? AND unique_key = ?", projectId, kind);
    },
    async list(projectId, kind) {
      const rows = kind
        ? prepared(db, "SELECT * FROM channel_destinations WHERE project_id = ? AND kind = ? ORDER BY id").all(projectId, kind)
        : prepared(db, "SELECT * FROM channel_destinations WHERE project_id = ? ORDER BY id").all(projectId);
      return (rows as Row[]).map(toRecord);
    },
    async all() {
      return (prepared(db, "SELECT * FROM channel_destinations ORDER BY id").all() as Row[]).map(toRecord);
    },
    async update(projectId, id, patch, ifUpdatedAt) {
      const columns = toSql(patchColumns(patch));
      const sets = Object.keys(columns).map((c) => `${c} = @${c}`);
      const guard = ifUpdatedAt ? " AND updated_at = @ifUpdatedAt" : "";
      const sql = `UPDATE channel_destinations SET ${sets.join(", ")} WHERE project_id = @projectId AND id = @id${guard} RETURNING *`;
      const update = prepared(db, sql);
      const args = { ...columns, projectId, id, ...(ifUpdatedAt ? { ifUpdatedAt: ifUpdatedAt.getTime() } : {}) };
      const row = (await writeWhenFree(db, () => update.get(args))) as Row | undefined;
      return row ? toRecord(row) : undefined;
    },
    async delete(projectId, id) {
      const remove = prepared(db, "DELETE FROM channel_destinations WHERE project_id = ? AND id = ?");
      return writeWhenFree(db, () => remove.run(projectId, id).changes > 0);
    },
    async ping() {
      prepared(db, "SELECT 1").get();
    },
  };
}
