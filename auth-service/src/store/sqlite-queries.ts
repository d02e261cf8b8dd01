import { prepared } from "@tocsin/store";
import type Database from "better-sqlite3";

/** Runs `sql` and maps the first row it returns, or null when there is none. */
export function one<T>(db: Database.Database, sql: string, map: (r: never) => T, ...args: unknown[]): T | null {
  const r = prepared(db, sql).get(...args) as never;
  return r === undefined ? null : map(r);
}

/** Runs `sql` and maps every row it returns. */
export function many<T>(db: Database.Database, sql: string, map: (r: never) => T, ...args: unknown[]): T[] {
  return (prepared(db, sql).all(...args) as never[]).map(map);
}
