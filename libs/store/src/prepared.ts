import type { Database, Statement } from "better-sqlite3";

const caches = new WeakMap<Database, Map<string, Statement>>();

/**
 * `db.prepare(sql)`, prepared once per database and SQL text and reused afterwards (preparing
 * costs more than running most of these statements). Callers only use `get`/`all`/`run`, which
 * reset the statement, so one statement can serve every call. The SQL texts are a fixed set
 * (queries built from a few options give a bounded number of variants).
 */
export function prepared(db: Database, sql: string): Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}
