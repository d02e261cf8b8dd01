import { prepared, writeWhenFree } from "@tocsin/store";
import type { Database } from "better-sqlite3";
import type { MailStore, StormSlot } from "../../domain/mail/ports.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS mail_windows (
  project_id INTEGER PRIMARY KEY,
  start_ms INTEGER NOT NULL,
  count INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS mail_slots (
  key TEXT PRIMARY KEY,
  project_id INTEGER NOT NULL,
  window_start INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  UNIQUE (project_id, window_start, seq)
);
CREATE TABLE IF NOT EXISTS mail_deliveries (
  key TEXT PRIMARY KEY,
  message_id TEXT NOT NULL,
  delivered_at INTEGER NOT NULL
);
`;

/** MailStore on better-sqlite3: a slot claim is one transaction, so it is atomic and exact. */
export function createSqliteMailStore(db: Database): MailStore {
  db.exec(SCHEMA);
  const claim = db.transaction((projectId: number, key: string, atMs: number, windowMs: number): StormSlot => {
    const held = prepared(db, "SELECT window_start, seq FROM mail_slots WHERE key = ?").get(key) as
      | { window_start: number; seq: number }
      | undefined;
    if (held) return { windowStart: new Date(held.window_start), seq: held.seq };
    const win = prepared(db, "SELECT start_ms, count FROM mail_windows WHERE project_id = ?").get(projectId) as
      | { start_ms: number; count: number }
      | undefined;
    const open = win && atMs < win.start_ms + windowMs;
    const start = open ? win.start_ms : atMs;
    const seq = open ? win.count + 1 : 1;
    prepared(
      db,
      "INSERT INTO mail_windows (project_id, start_ms, count) VALUES (?, ?, ?) ON CONFLICT (project_id) DO UPDATE SET start_ms = excluded.start_ms, count = excluded.count",
    ).run(projectId, start, seq);
    prepared(db, "INSERT INTO mail_slots (key, project_id, window_start, seq) VALUES (?, ?, ?, ?)").run(
      key,
      projectId,
      start,
      seq,
    );
    return { windowStart: new Date(start), seq };
  });
  return {
    async claimSlot(projectId, key, at, windowMs) {
      return claim(projectId, key, at.getTime(), windowMs);
    },
    async overflow(projectId, windowStart, limit) {
      const rows = prepared(
        db,
        "SELECT key FROM mail_slots WHERE project_id = ? AND window_start = ? AND seq > ? ORDER BY seq",
      ).all(projectId, windowStart.getTime(), limit) as Array<{ key: string }>;
      return rows.map((r) => r.key);
    },
    async delivered(key) {
      return prepared(db, "SELECT 1 FROM mail_deliveries WHERE key = ?").get(key) !== undefined;
    },
    async recordDelivery(key, messageId, at) {
      const insert = prepared(db, "INSERT OR IGNORE INTO mail_deliveries (key, message_id, delivered_at) VALUES (?, ?, ?)");
      await writeWhenFree(db, () => insert.run(key, messageId, at.getTime()));
    },
  };
}
