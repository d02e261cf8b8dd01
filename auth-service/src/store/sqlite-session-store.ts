import { prepared } from "@tocsin/store";
import type Database from "better-sqlite3";
import type { NewSession, SessionStore } from "../domain/ports.js";
import type { SessionRecord } from "../domain/types.js";
import * as row from "./sqlite-rows.js";

/** SessionStore on the auth-service's SQLite database (tables `sessions`, `sign_in_failures`). */
export class SqliteSessionStore implements SessionStore {
  constructor(private readonly db: Database.Database) {}

  private stmt(sql: string) {
    return prepared(this.db, sql);
  }

  async insertSession(input: NewSession): Promise<SessionRecord> {
    const res = this.stmt("INSERT INTO sessions (user_id, token_hash, created_at, last_seen_at) VALUES (?, ?, ?, ?)").run(
      input.userId,
      input.tokenHash,
      input.createdAt.toISOString(),
      input.lastSeenAt.toISOString(),
    );
    return { ...input, id: Number(res.lastInsertRowid) };
  }

  async findSessionByHash(tokenHash: string): Promise<SessionRecord | null> {
    const r = this.stmt("SELECT * FROM sessions WHERE token_hash = ?").get(tokenHash) as
      | Parameters<typeof row.session>[0]
      | undefined;
    return r ? row.session(r) : null;
  }

  async touchSession(id: number, lastSeenAt: Date): Promise<void> {
    this.stmt("UPDATE sessions SET last_seen_at = ? WHERE id = ?").run(lastSeenAt.toISOString(), id);
  }

  async deleteSession(id: number): Promise<boolean> {
    return this.stmt("DELETE FROM sessions WHERE id = ?").run(id).changes > 0;
  }

  async deleteSessionsIdleSince(before: Date): Promise<number> {
    return this.stmt("DELETE FROM sessions WHERE last_seen_at < ?").run(before.toISOString()).changes;
  }

  async deleteSessionsOfUser(userId: number): Promise<number[]> {
    return (this.stmt("DELETE FROM sessions WHERE user_id = ? RETURNING id").all(userId) as { id: number }[])
      .map((r) => Number(r.id))
      .sort((a, b) => a - b);
  }

  async addSignInFailure(key: string, at: Date, forgetBefore: Date): Promise<void> {
    this.stmt("DELETE FROM sign_in_failures WHERE at < ?").run(forgetBefore.toISOString());
    this.stmt("INSERT INTO sign_in_failures (login_key, at) VALUES (?, ?)").run(key, at.toISOString());
  }

  async listSignInFailures(key: string, since: Date): Promise<Date[]> {
    const rows = this.stmt("SELECT at FROM sign_in_failures WHERE login_key = ? AND at >= ? ORDER BY at, id").all(
      key,
      since.toISOString(),
    ) as { at: string }[];
    return rows.map((r) => new Date(r.at));
  }

  async clearSignInFailures(key: string): Promise<void> {
    this.stmt("DELETE FROM sign_in_failures WHERE login_key = ?").run(key);
  }
}
