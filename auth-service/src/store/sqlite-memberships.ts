import { prepared } from "@tocsin/store";
import type Database from "better-sqlite3";
import type { MembershipRecord, SourceType } from "../domain/types.js";
import { many } from "./sqlite-queries.js";
import * as row from "./sqlite-rows.js";

/** Memberships on SQLite (table `memberships`, one row per source and user). */
type Db = Database.Database;

export async function upsert(db: Db, m: MembershipRecord): Promise<void> {
  prepared(
    db,
    `INSERT INTO memberships (source_type, source_id, user_id, access_level) VALUES (?, ?, ?, ?)
         ON CONFLICT (source_type, source_id, user_id) DO UPDATE SET access_level = excluded.access_level`,
  ).run(m.sourceType, m.sourceId, m.userId, m.accessLevel);
}

export async function listOfUser(db: Db, userId: number): Promise<MembershipRecord[]> {
  return many(db, "SELECT * FROM memberships WHERE user_id = ?", row.membership, userId);
}

export async function listOfSources(db: Db, sources: { type: SourceType; id: number }[]): Promise<MembershipRecord[]> {
  if (sources.length === 0) return [];
  const where = sources.map(() => "(source_type = ? AND source_id = ?)").join(" OR ");
  return many(db, `SELECT * FROM memberships WHERE ${where}`, row.membership, ...sources.flatMap((s) => [s.type, s.id]));
}
