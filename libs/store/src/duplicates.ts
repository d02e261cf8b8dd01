/**
 * A unique-index violation from MongoDB, FerretDB or better-sqlite3. MongoDB, and FerretDB 1.x
 * for inserts and upserts, answer code 11000; FerretDB 1.x answers an update (`update`,
 * `findAndModify`) that moves a document onto a taken key with InternalError (code 1) and
 * SQLite's `UNIQUE constraint failed` text, which is also better-sqlite3's message.
 */
export function isDuplicateKey(err: unknown): boolean {
  if (err === null || typeof err !== "object") return false;
  const e = err as { code?: unknown; message?: unknown };
  if (e.code === 11000 || e.code === 11001) return true;
  return typeof e.message === "string" && /E11000|duplicate key|UNIQUE constraint failed/i.test(e.message);
}

/**
 * A better-sqlite3 unique or primary-key violation (by its error code), optionally of the index
 * whose columns `needle` names (`"alerts.project_id, alerts.fingerprint"`), for adapters that must
 * tell one unique rule from another. `isDuplicateKey` answers for any backend.
 */
export function isUniqueViolation(err: unknown, needle?: string): boolean {
  const e = err as { code?: string; message?: string };
  return (
    (e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY") &&
    (!needle || !!e.message?.includes(needle))
  );
}
