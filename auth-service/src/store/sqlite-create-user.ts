import { prepared } from "@tocsin/store";
import type Database from "better-sqlite3";
import type { NewUser } from "../domain/ports.js";
import { guardSqlite } from "./duplicates.js";

/** Inserts the user's namespace, the user and the primary e-mail in one transaction; returns the user's id. */
export function insertUser(db: Database.Database, input: NewUser): number {
  const created = input.createdAt.toISOString();
  const tx = db.transaction(() => {
    const ns = prepared(
      db,
      "INSERT INTO namespaces (kind, name, path, full_path, full_path_lower, created_at) VALUES ('user', ?, ?, ?, ?, ?)",
    ).run(input.name, input.username, input.username, input.username.toLowerCase(), created);
    const user = prepared(
      db,
      `INSERT INTO users (username, username_lower, name, email, is_admin, namespace_id, created_at, password_hash)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      input.username,
      input.username.toLowerCase(),
      input.name,
      input.email,
      input.isAdmin ? 1 : 0,
      ns.lastInsertRowid,
      created,
      input.passwordHash ?? null,
    );
    prepared(db, "UPDATE namespaces SET owner_id = ? WHERE id = ?").run(user.lastInsertRowid, ns.lastInsertRowid);
    prepared(db, "INSERT INTO emails (user_id, email, email_lower, confirmed_at, is_primary) VALUES (?, ?, ?, ?, 1)").run(
      user.lastInsertRowid,
      input.email,
      input.email.toLowerCase(),
      created,
    );
    return Number(user.lastInsertRowid);
  });
  return guardSqlite(() => tx(), { path: "username" });
}
