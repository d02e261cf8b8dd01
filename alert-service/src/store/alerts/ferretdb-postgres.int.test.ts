import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { systemClock } from "@tocsin/core";
import { type Backend, freshPostgresDatabase, type PostgresDatabase, postgresFor, startFerretDb, until } from "@tocsin/testing";
import { type Db, MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NormalizedAlert } from "../../domain/alerts/model.js";
import type { AlertsStores, ProcessAlertJob } from "../../domain/alerts/ports.js";
import { processAlertJob } from "../../domain/alerts/processing.js";
import { createReactions } from "../../domain/alerts/reactions.js";
import { createMongoAlertsStores } from "./mongo-stores.js";

/**
 * Issue 25 item 4 on FerretDB 1.x's PostgreSQL backend: FerretDB pushes a `find` by `_id` down as
 * `_jsonb->'_id' @> '"…"'`, which its own B-tree on `(_jsonb->'_id')` cannot answer, so every read
 * of an existing alert reads the whole table. scripts/ferretdb-postgres-id-indexes.sql adds a GIN
 * index per table; these tests show the scan without it and the index in use with it, on the
 * real processing path, from PostgreSQL's own counters.
 */
const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const SCRIPT = join(repoRoot, "scripts", "ferretdb-postgres-id-indexes.sql");
const DB = "tocsin";
const server = postgresFor("ferretdb-postgres");

describe.skipIf(!server)("FerretDB on PostgreSQL: look-ups by _id served by an index", () => {
  let pg: PostgresDatabase;
  let ferret: Backend | undefined;
  let client: MongoClient;
  let db: Db;
  let stores: AlertsStores;

  /** FerretDB on the test's database, a client and the stores over it. */
  async function connect() {
    ferret = await startFerretDb(repoRoot, pg.url);
    if (!ferret) throw new Error("no FerretDB binary (scripts/install-ferretdb.sh)");
    client = await new MongoClient(ferret.url).connect();
    db = client.db(DB);
    stores = await createMongoAlertsStores(db);
  }
  async function disconnect() {
    await client?.close();
    await ferret?.stop();
  }

  beforeAll(async () => {
    pg = freshPostgresDatabase(server as string, "tocsin_test_fpg");
    await connect();
    // A new alert, a repeat and a recovery create every collection of the hot path.
    await processAlertJob(deps(), job("first"));
    await processAlertJob(deps(), job("first"));
    await processAlertJob(deps(), job("first", { endedAt: new Date().toISOString() }));
  });
  afterAll(async () => {
    await disconnect();
    pg?.drop();
  });

  let seq = 0;
  function job(fingerprint: string, fields: Partial<NormalizedAlert> = {}): ProcessAlertJob {
    const id = `fpg-${++seq}`;
    const alert = { title: `Alert ${fingerprint}`, hosts: [], severity: "high" as const, source: "tool" };
    return {
      jobId: id,
      requestId: id,
      projectId: 7,
      integrationId: 1,
      alert: { ...alert, startedAt: new Date().toISOString(), payload: { fingerprint }, fingerprint, ...fields },
    };
  }
  function deps() {
    return {
      stores,
      jobs: { enqueueIncident: async () => {}, enqueueFollowUps: async () => {} },
      clock: systemClock,
      reactions: createReactions([], (projectId) => stores.incidents.settings(projectId)),
    };
  }

  /** The PostgreSQL table FerretDB keeps `collection` in. */
  const tableOf = (collection: string) =>
    pg.sql(`SELECT _jsonb->>'table' FROM ${DB}._ferretdb_database_metadata WHERE _jsonb->>'_id' = '${collection}'`);
  /** PostgreSQL's counters of `table` (flushed by FerretDB's connections within about a second). */
  const scans = (table: string): { seqScans: number; gin: number } => {
    const row = pg.sql(
      `SELECT t.seq_scan, coalesce(sum(i.idx_scan) FILTER (WHERE i.indexrelname LIKE '%_tocsin_id_gin'), 0)
       FROM pg_stat_user_tables t LEFT JOIN pg_stat_user_indexes i ON i.relid = t.relid
       WHERE t.schemaname = '${DB}' AND t.relname = '${table}' GROUP BY t.seq_scan`,
    );
    const [seqScans, gin] = row.split("|").map(Number);
    if (seqScans === undefined || gin === undefined || Number.isNaN(seqScans + gin))
      throw new Error(`no counters for ${table}: ${row}`);
    return { seqScans, gin };
  };

  /** Another project's history, `n` alerts and their signposts, written straight to the collections. */
  async function history(n: number) {
    const ids = Array.from({ length: n }, (_, i) => `filler-${i}`);
    await db
      .collection<{ _id: string }>("alerts")
      .insertMany(ids.map((id, i) => ({ _id: id, project_id: 999, iid: i + 1, open_key: `closed:${id}`, create_op: id })));
    await db.collection<{ _id: string }>("open_alerts").insertMany(ids.map((id, i) => ({ _id: `999:${id}`, alert_id: i })));
  }
  const read = async (id: string) => expect(await db.collection<{ _id: string }>("alerts").findOne({ _id: id })).not.toBeNull();

  it("without the script, a find by _id reads the whole table", { timeout: 30_000 }, async () => {
    const table = tableOf("alerts");
    const [first] = await db.collection<{ _id: string }>("alerts").find({}).limit(1).toArray();
    const before = scans(table).seqScans;
    for (let i = 0; i < 3; i++) await read(String(first?._id));
    await until(() => scans(table).seqScans >= before + 4, 25_000, 200);
  });

  it("the script indexes every collection's _id, is safe to run again, and processing's reads use it", {
    timeout: 90_000,
  }, async () => {
    pg.file(SCRIPT, { schema: DB });
    pg.file(SCRIPT, { schema: DB });
    // As the script's header asks: FerretDB's pooled connections keep their plan cache mode.
    await disconnect();
    await connect();
    const tables = pg.sql(`SELECT tablename FROM pg_tables WHERE schemaname = '${DB}' AND tablename NOT LIKE '\\_ferretdb\\_%'`);
    const indexed = pg.sql(`SELECT tablename FROM pg_indexes WHERE schemaname = '${DB}' AND indexname LIKE '%_tocsin_id_gin'`);
    expect(tables.split("\n").sort()).toEqual(indexed.split("\n").sort());
    expect(tables.split("\n")).toEqual(expect.arrayContaining([tableOf("alerts"), tableOf("open_alerts")]));

    // While the tables are small, more than the five runs after which PostgreSQL may switch a
    // statement to its generic plan (a scan, kept however large the table grows).
    const [alerts, open] = [tableOf("alerts"), tableOf("open_alerts")];
    const start = scans(alerts);
    for (let i = 0; i < 3; i++) await processAlertJob(deps(), job("small"));
    const [small] = await db.collection<{ _id: string }>("alerts").find({}).limit(1).toArray();
    for (let i = 0; i < 20; i++) await read(String(small?._id));
    // Each read is a scan or an index scan; once all are counted, the counters are settled.
    const before = await until(
      () => {
        const [a, o] = [scans(alerts), scans(open)];
        return a.gin + a.seqScans >= start.gin + start.seqScans + 21 && { alerts: a.gin, open: o.gin };
      },
      25_000,
      200,
    );
    await history(3000);

    // A repeat and a recovery read the open fingerprint's signpost and the alert by _id.
    await processAlertJob(deps(), job("second"));
    await processAlertJob(deps(), job("second"));
    await processAlertJob(deps(), job("second", { endedAt: new Date().toISOString() }));
    const settled = await until(
      () => {
        const [a, o] = [scans(alerts), scans(open)];
        return a.gin > before.alerts && o.gin > before.open && a;
      },
      25_000,
      200,
    );

    // Ten reads by _id in the grown table: ten index scans and no table scan.
    for (let i = 0; i < 10; i++) await read(`filler-${i * 97}`);
    await until(() => scans(alerts).gin >= settled.gin + 10, 25_000, 200);
    expect(scans(alerts).seqScans).toBe(settled.seqScans);
  });

  it("refuses a database that FerretDB has not created", () => {
    expect(() => pg.file(SCRIPT, { schema: "nothing_here" })).toThrow(/no schema nothing_here/);
  });
});
