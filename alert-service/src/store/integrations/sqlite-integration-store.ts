import { AppError, alreadyExists } from "@tocsin/core";
import { isDuplicateKey, prepared, writeWhenFree } from "@tocsin/store";
import type Database from "better-sqlite3";
import type { IntegrationStore } from "../../domain/integrations/ports.js";
import type { IntegrationPatch, IntegrationRecord, IntegrationType, NewIntegration } from "../../domain/integrations/types.js";
import { mappingFromText, mappingToText, uniqueKeyOf } from "./codec.js";

interface Row {
  id: number;
  project_id: number;
  type: string;
  name: string;
  active: number;
  payload_example: string;
  mapping: string | null;
  api_url: string;
  rate_limit_per_minute: number | null;
  token_last_used_at: number | null;
  auto_resolve_minutes: number | null;
  created_at: number;
  updated_at: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS integrations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('http', 'prometheus', 'opsgenie')),
  name TEXT NOT NULL,
  unique_key TEXT NOT NULL,
  active INTEGER NOT NULL,
  payload_example TEXT NOT NULL,
  mapping TEXT,
  api_url TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project_id, unique_key)
);`;

function toRecord(row: Row): IntegrationRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    type: row.type as IntegrationType,
    name: row.name,
    active: row.active === 1,
    payloadExample: row.payload_example,
    mapping: mappingFromText(row.mapping),
    apiUrl: row.api_url,
    rateLimitPerMinute: row.rate_limit_per_minute ?? null,
    autoResolveMinutes: row.auto_resolve_minutes ?? null,
    tokenLastUsedAt: row.token_last_used_at ? new Date(row.token_last_used_at) : null,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function duplicate(err: unknown): never {
  if (isDuplicateKey(err)) {
    throw alreadyExists("INTEGRATION_EXISTS", "Integration already exists");
  }
  throw err;
}

/** Integrations in the embedded SQLite database (`integrations` table). */
export function createSqliteIntegrationStore(db: Database.Database): IntegrationStore {
  db.exec(SCHEMA);
  // Added after the first release: databases created before get the columns on open.
  const columns = db.prepare("PRAGMA table_info(integrations)").all() as Array<{ name: string }>;
  for (const added of ["rate_limit_per_minute", "token_last_used_at", "auto_resolve_minutes"])
    if (!columns.some((c) => c.name === added)) db.exec(`ALTER TABLE integrations ADD COLUMN ${added} INTEGER`);
  const stmt = {
    insert: db.prepare(
      `INSERT INTO integrations (project_id, type, name, unique_key, active, payload_example, mapping, api_url, rate_limit_per_minute, auto_resolve_minutes, created_at, updated_at)
       VALUES (@project_id, @type, @name, @unique_key, @active, @payload_example, @mapping, @api_url, @rate_limit_per_minute, @auto_resolve_minutes, @created_at, @created_at) RETURNING *`,
    ),
    get: db.prepare("SELECT * FROM integrations WHERE project_id = ? AND id = ?"),
    list: db.prepare("SELECT * FROM integrations WHERE project_id = ? ORDER BY id"),
    singleton: db.prepare("SELECT * FROM integrations WHERE project_id = ? AND type = ? ORDER BY id LIMIT 1"),
    delete: db.prepare("DELETE FROM integrations WHERE project_id = ? AND id = ?"),
    touch: db.prepare(
      `UPDATE integrations SET token_last_used_at = @at
       WHERE project_id = @projectId AND id = @id AND (token_last_used_at IS NULL OR token_last_used_at < @at)`,
    ),
  };

  return {
    async insert(input: NewIntegration) {
      try {
        const values = {
          project_id: input.projectId,
          type: input.type,
          name: input.name,
          unique_key: uniqueKeyOf(input.type, input.name),
          active: input.active ? 1 : 0,
          payload_example: input.payloadExample,
          mapping: mappingToText(input.mapping),
          api_url: input.apiUrl,
          rate_limit_per_minute: input.rateLimitPerMinute,
          auto_resolve_minutes: input.autoResolveMinutes,
          created_at: input.createdAt.getTime(),
        };
        return toRecord((await writeWhenFree(db, () => stmt.insert.get(values))) as Row);
      } catch (err) {
        return duplicate(err);
      }
    },
    async get(projectId, id) {
      const row = stmt.get.get(projectId, id) as Row | undefined;
      return row ? toRecord(row) : undefined;
    },
    async list(projectId) {
      return (stmt.list.all(projectId) as Row[]).map(toRecord);
    },
    async findSingleton(projectId, type) {
      const row = stmt.singleton.get(projectId, type) as Row | undefined;
      return row ? toRecord(row) : undefined;
    },
    async update(projectId, id, patch: IntegrationPatch) {
      const sets: string[] = ["updated_at = @at"];
      const values: Record<string, unknown> = { projectId, id, at: patch.at.getTime() };
      if (patch.name !== undefined) {
        sets.push("name = @name", "unique_key = CASE WHEN type = 'http' THEN @uniqueKey ELSE unique_key END");
        Object.assign(values, { name: patch.name, uniqueKey: uniqueKeyOf("http", patch.name) });
      }
      const set = (column: string, value: unknown) => {
        sets.push(`${column} = @${column}`);
        values[column] = value;
      };
      if (patch.active !== undefined) set("active", patch.active ? 1 : 0);
      if (patch.payloadExample !== undefined) set("payload_example", patch.payloadExample);
      if (patch.mapping !== undefined) set("mapping", mappingToText(patch.mapping));
      if (patch.apiUrl !== undefined) set("api_url", patch.apiUrl);
      if (patch.rateLimitPerMinute !== undefined) set("rate_limit_per_minute", patch.rateLimitPerMinute);
      if (patch.autoResolveMinutes !== undefined) set("auto_resolve_minutes", patch.autoResolveMinutes);
      try {
        const update = prepared(
          db,
          `UPDATE integrations SET ${sets.join(", ")} WHERE project_id = @projectId AND id = @id RETURNING *`,
        );
        const row = (await writeWhenFree(db, () => update.get(values))) as Row | undefined;
        return row ? toRecord(row) : undefined;
      } catch (err) {
        if (err instanceof AppError) throw err;
        return duplicate(err);
      }
    },
    // On the accept path (once a minute per integration).
    async touch(projectId, id, at) {
      await writeWhenFree(db, () => stmt.touch.run({ projectId, id, at: at.getTime() }));
    },
    async delete(projectId, id) {
      return writeWhenFree(db, () => stmt.delete.run(projectId, id).changes > 0);
    },
    async ping() {
      prepared(db, "SELECT 1").get();
    },
    async close() {
      // The database handle is shared with the rest of alert-service and closed by its owner.
    },
  };
}
