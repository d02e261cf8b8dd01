-- FerretDB 1.x on PostgreSQL: an index that serves look-ups by `_id` (issue 25 item 4).
--
--   psql "$POSTGRES_URL" -v schema=tocsin -f scripts/ferretdb-postgres-id-indexes.sql
--
-- `schema` is the MongoDB database's name (MONGO_URL's path): FerretDB keeps a database as a
-- PostgreSQL schema and each collection as a table of one `jsonb` column, `_jsonb`. Its own
-- unique index on `_id` is a B-tree on `(_jsonb->'_id')`, which serves its updates and deletes
-- (`WHERE _jsonb->'_id' = $1`) but not its reads: FerretDB pushes a `find` down as
-- `_jsonb->$1 @> $2`, and only a GIN index answers `@>`. Without one, every `find` by `_id` (each
-- repeat, resolve and replayed job of Tocsin's hot path) reads the whole table. GIN keeps new
-- entries in a pending list, merged into the tree in bulk, which every look-up walks: the
-- indexes keep it at its smallest, 64 kB (at the default 4 MB a read by `_id` at 100,000 alerts
-- took 6.7 ms against 1.9), except on `counters`, Tocsin's sequences: a few documents, each
-- rewritten on every new alert, whose churn the default list absorbs (with a small list or none,
-- `findAndModify counters` went from 2.6 to 7.4 ms per new alert by 100,000, and intake to 0.64).
--
-- PostgreSQL uses that index only in a plan made for the query's values: FerretDB sends
-- prepared statements whose key is a parameter (`_jsonb->$1`), which no index matches. After five
-- runs PostgreSQL may switch a statement to its generic plan, and one switched while its table
-- was small (a scan looked as cheap) keeps scanning as the table grows, until the table is next
-- analyzed. So the script also sets the database's `plan_cache_mode` to `force_custom_plan`: a
-- plan per run, which costs a planning of a simple query and sees the table's current size.
--
-- Run it once after alert-service has started on the database (it creates the collections), then
-- restart FerretDB (its pooled connections keep the plan cache mode they started with); again
-- after an upgrade that adds a collection. It skips tables that have the index already. FerretDB
-- does not list these indexes (they are not in its metadata); dropping a collection drops its
-- index with its table.
SET client_min_messages = warning;
SELECT set_config('tocsin.ferretdb_schema', :'schema', false) AS schema \gset

DO $$
DECLARE
  s text := current_setting('tocsin.ferretdb_schema');
  t record;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = s) THEN
    RAISE EXCEPTION 'no schema %: start alert-service on this database first', s;
  END IF;
  EXECUTE format('ALTER DATABASE %I SET plan_cache_mode = force_custom_plan', current_database());
  FOR t IN EXECUTE format(
    'SELECT _jsonb->>''_id'' AS collection, _jsonb->>''table'' AS tbl FROM %I._ferretdb_database_metadata', s
  ) LOOP
    EXECUTE format(
      'CREATE INDEX IF NOT EXISTS %I ON %I.%I USING gin ((_jsonb->''_id'') jsonb_path_ops)%s',
      left(t.tbl, 50) || '_tocsin_id_gin', s, t.tbl,
      CASE WHEN t.collection = 'counters' THEN '' ELSE ' WITH (gin_pending_list_limit = 64)' END
    );
  END LOOP;
END $$;
