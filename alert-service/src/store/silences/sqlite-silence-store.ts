import { alreadyExists } from "@tocsin/core";
import { isDuplicateKey, prepared, writeWhenFree } from "@tocsin/store";
import type Database from "better-sqlite3";
import type { Silence } from "../../domain/silences/model.js";
import type { SilenceStore } from "../../domain/silences/ports.js";
import { matchersFromText, matchersToText } from "./codec.js";

interface Row {
  id: string;
  project_id: number;
  matchers: string;
  starts_at: number;
  ends_at: number;
  created_by: string;
  comment: string;
  updated_at: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS silences (
  id TEXT PRIMARY KEY,
  project_id INTEGER NOT NULL,
  matchers TEXT NOT NULL,
  starts_at INTEGER NOT NULL,
  ends_at INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  comment TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS silences_project_ends ON silences (project_id, ends_at);
CREATE TABLE IF NOT EXISTS alert_silenced_by (
  alert_id INTEGER PRIMARY KEY,
  silence_ids TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);`;

function toSilence(row: Row): Silence {
  return {
    id: row.id,
    projectId: row.project_id,
    matchers: matchersFromText(row.matchers),
    startsAt: new Date(row.starts_at),
    endsAt: new Date(row.ends_at),
    createdBy: row.created_by,
    comment: row.comment,
    updatedAt: new Date(row.updated_at),
  };
}

function toRow(s: Silence): Row {
  return {
    id: s.id,
    project_id: s.projectId,
    matchers: matchersToText(s.matchers),
    starts_at: s.startsAt.getTime(),
    ends_at: s.endsAt.getTime(),
    created_by: s.createdBy,
    comment: s.comment,
    updated_at: s.updatedAt.getTime(),
  };
}

/** Silences in the embedded SQLite database (`silences` table). */
export function createSqliteSilenceStore(db: Database.Database): SilenceStore {
  db.exec(SCHEMA);
  const stmt = {
    insert: db.prepare(
      `INSERT INTO silences (id, project_id, matchers, starts_at, ends_at, created_by, comment, updated_at)
       VALUES (@id, @project_id, @matchers, @starts_at, @ends_at, @created_by, @comment, @updated_at)`,
    ),
    get: db.prepare("SELECT * FROM silences WHERE project_id = ? AND id = ?"),
    list: db.prepare("SELECT * FROM silences WHERE project_id = ? AND ends_at > ? ORDER BY id"),
    mark: db.prepare(
      `INSERT INTO alert_silenced_by (alert_id, silence_ids, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (alert_id) DO UPDATE SET silence_ids = excluded.silence_ids, updated_at = excluded.updated_at`,
    ),
    unmark: db.prepare("DELETE FROM alert_silenced_by WHERE alert_id = ?"),
    update: db.prepare(
      `UPDATE silences SET matchers = @matchers, starts_at = @starts_at, ends_at = @ends_at,
       created_by = @created_by, comment = @comment, updated_at = @updated_at
       WHERE project_id = @project_id AND id = @id`,
    ),
  };
  return {
    async insert(silence) {
      try {
        const row = toRow(silence);
        await writeWhenFree(db, () => stmt.insert.run(row));
      } catch (err) {
        if (isDuplicateKey(err)) throw alreadyExists("SILENCE_EXISTS", "Silence already exists");
        throw err;
      }
    },
    async get(projectId, id) {
      const row = stmt.get.get(projectId, id) as Row | undefined;
      return row ? toSilence(row) : undefined;
    },
    async list(projectId, opts = {}) {
      const after = opts.endsAfter?.getTime() ?? Number.MIN_SAFE_INTEGER;
      return (stmt.list.all(projectId, after) as Row[]).map(toSilence);
    },
    async update(silence) {
      const row = toRow(silence);
      return writeWhenFree(db, () => stmt.update.run(row).changes > 0);
    },
    // Processing only (inside the thread's batch transaction): no main-thread wait to avoid.
    async markSilenced(alertId, silenceIds, at) {
      if (silenceIds.length === 0) stmt.unmark.run(alertId);
      else stmt.mark.run(alertId, JSON.stringify(silenceIds), at.getTime());
    },
    async alertsHeldBy(silenceId) {
      const rows = prepared(db, "SELECT alert_id, silence_ids FROM alert_silenced_by WHERE instr(silence_ids, ?) > 0").all(
        JSON.stringify(silenceId),
      ) as Array<{ alert_id: number; silence_ids: string }>;
      return rows.filter((r) => (JSON.parse(r.silence_ids) as string[]).includes(silenceId)).map((r) => r.alert_id);
    },
    async silencedBy(alertIds) {
      const found = new Map<number, string[]>();
      // Chunks keep each statement within SQLite's bound-parameter limit.
      for (let i = 0; i < alertIds.length; i += 500) {
        const part = alertIds.slice(i, i + 500);
        const rows = prepared(
          db,
          `SELECT alert_id, silence_ids FROM alert_silenced_by WHERE alert_id IN (${part.map(() => "?").join(",")})`,
        ).all(...part) as Array<{ alert_id: number; silence_ids: string }>;
        for (const row of rows) found.set(row.alert_id, JSON.parse(row.silence_ids) as string[]);
      }
      return found;
    },
    async ping() {
      prepared(db, "SELECT 1").get();
    },
  };
}
