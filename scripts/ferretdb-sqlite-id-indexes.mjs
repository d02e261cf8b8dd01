#!/usr/bin/env node
// FerretDB 1.x on SQLite: an index that serves look-ups by `_id` (issue 25 item 4).
//
//   node scripts/ferretdb-sqlite-id-indexes.mjs <FerretDB's SQLite file of a database>
//
// FerretDB keeps each MongoDB database in a file `<database>.sqlite` of its `--sqlite-url`
// folder, each collection as a table of one JSON column, `_ferretdb_sjson`. It reads a document
// by `_id` with `WHERE _ferretdb_sjson->'$._id' = ?` (its `find`, and the read before each update,
// findAndModify and delete by `_id`), but its own unique index is on `_ferretdb_sjson->"_id"`: a
// different expression to SQLite, which matches index expressions by their text. So every repeat,
// resolve and replayed job of Tocsin's hot path scans the table. This adds an index on the
// expression FerretDB queries to every collection's table (tables that have it are skipped), and
// prints what it did. FerretDB sees it at its next statement: no restart. Run it once
// alert-service has started on the database (it creates the collections), and again after an
// upgrade that adds a collection. FerretDB does not list these indexes (they are not in its
// metadata); dropping a collection drops its index with its table.
import { existsSync } from "node:fs";
import Database from "better-sqlite3";

const file = process.argv[2];
if (!file || !existsSync(file)) {
  console.error(
    "usage: node scripts/ferretdb-sqlite-id-indexes.mjs <FerretDB's SQLite file of a database, e.g. /data/tocsin_alert.sqlite>",
  );
  process.exit(2);
}
const db = new Database(file, { fileMustExist: true });
try {
  // FerretDB writes the same file: wait for its write transactions, never fail on them.
  db.pragma("busy_timeout = 30000");
  const tables = db
    .prepare("SELECT table_name FROM _ferretdb_collections ORDER BY table_name")
    .all()
    .map((r) => r.table_name);
  const quote = (name) => `"${name.replaceAll('"', '""')}"`;
  for (const table of tables) {
    db.exec(`CREATE INDEX IF NOT EXISTS ${quote(`${table}_tocsin_id`)} ON ${quote(table)} (_ferretdb_sjson->'$._id')`);
  }
  console.log(`ferretdb-sqlite-id-indexes: ${tables.length} collection tables of ${file} indexed by _id`);
} catch (err) {
  console.error(`ferretdb-sqlite-id-indexes: ${file}: ${err.message}`);
  process.exitCode = 1;
} finally {
  db.close();
}
