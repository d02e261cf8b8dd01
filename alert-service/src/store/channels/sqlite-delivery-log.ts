import { deleteInChunks, prepared, writeWhenFree } from "@tocsin/store";
import type Database from "better-sqlite3";
import type { DeliveryLog, DeliveryRecord, DeliveryStatus } from "../../domain/channels/ports.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS channel_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL UNIQUE,
  project_id INTEGER NOT NULL,
  destination_id INTEGER NOT NULL,
  event_type TEXT NOT NULL,
  event_id TEXT NOT NULL,
  alert_id INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('retrying', 'delivered', 'failed', 'summarized')),
  attempts INTEGER NOT NULL,
  response_status INTEGER,
  duration_ms INTEGER NOT NULL,
  error TEXT,
  not_before INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS channel_deliveries_destination ON channel_deliveries (destination_id, created_at);`;

interface Row {
  id: number;
  key: string;
  project_id: number;
  destination_id: number;
  event_type: string;
  event_id: string;
  alert_id: number;
  status: string;
  attempts: number;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  not_before: number | null;
  created_at: number;
  updated_at: number;
}

function toRecord(r: Row): DeliveryRecord {
  return {
    id: r.id,
    key: r.key,
    projectId: r.project_id,
    destinationId: r.destination_id,
    eventType: r.event_type,
    eventId: r.event_id,
    alertId: r.alert_id,
    status: r.status as DeliveryStatus,
    attempts: r.attempts,
    responseStatus: r.response_status,
    durationMs: r.duration_ms,
    error: r.error,
    notBefore: r.not_before === null ? null : new Date(r.not_before),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/** The delivery log in the embedded SQLite database (`channel_deliveries`, unique key). */
export function createSqliteDeliveryLog(db: Database.Database): DeliveryLog {
  db.exec(SCHEMA);
  return {
    async open(d) {
      const insert = prepared(
        db,
        `INSERT INTO channel_deliveries (key, project_id, destination_id, event_type, event_id, alert_id, status, attempts, duration_ms, created_at, updated_at)
         VALUES (@key, @projectId, @destinationId, @eventType, @eventId, @alertId, 'retrying', 0, 0, @at, @at) ON CONFLICT (key) DO NOTHING`,
      );
      await writeWhenFree(db, () => insert.run({ ...d, at: d.createdAt.getTime() }));
      return toRecord(prepared(db, "SELECT * FROM channel_deliveries WHERE key = ?").get(d.key) as Row);
    },
    async record(id, o) {
      const update = prepared(
        db,
        `UPDATE channel_deliveries SET status = @status, attempts = @attempts, response_status = @responseStatus,
         duration_ms = @durationMs, error = @error, not_before = @notBefore, updated_at = @at WHERE id = @id`,
      );
      await writeWhenFree(db, () => update.run({ ...o, id, notBefore: o.notBefore?.getTime() ?? null, at: o.at.getTime() }));
    },
    async get(projectId, id) {
      const row = prepared(db, "SELECT * FROM channel_deliveries WHERE project_id = ? AND id = ?").get(projectId, id) as
        | Row
        | undefined;
      return row ? toRecord(row) : undefined;
    },
    async list(destinationId, since, limit) {
      const rows = prepared(
        db,
        `SELECT * FROM channel_deliveries WHERE destination_id = ? AND created_at >= ? AND status != 'summarized'
         ORDER BY id DESC LIMIT ?`,
      ).all(destinationId, since.getTime(), limit) as Row[];
      return rows.map(toRecord);
    },
    async rank(destinationId, from, to, upToId) {
      const row = prepared(
        db,
        `SELECT COUNT(*) AS n FROM channel_deliveries WHERE destination_id = ? AND created_at >= ? AND created_at < ?
         AND id <= ? AND event_type != 'summary'`,
      ).get(destinationId, from.getTime(), to.getTime(), upToId) as { n: number };
      return row.n;
    },
    async summarized(destinationId, from, to) {
      const row = prepared(
        db,
        `SELECT COUNT(*) AS n FROM channel_deliveries WHERE destination_id = ? AND created_at >= ? AND created_at < ?
         AND status = 'summarized'`,
      ).get(destinationId, from.getTime(), to.getTime()) as { n: number };
      return row.n;
    },
    async purge(before) {
      await deleteInChunks(
        db,
        "DELETE FROM channel_deliveries WHERE id IN (SELECT id FROM channel_deliveries WHERE created_at < ? LIMIT ?)",
        [before.getTime()],
      );
    },
  };
}
