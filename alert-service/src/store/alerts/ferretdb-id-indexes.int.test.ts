import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { systemClock } from "@tocsin/core";
import { type Backend, freshPostgresDatabase, type PostgresDatabase, postgresFor, startFerretDb, until } from "@tocsin/testing";
import { type Db, MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { NormalizedAlert } from "../../domain/alerts/model.js";
import type { AlertsStores, ProcessAlertJob } from "../../domain/alerts/ports.js";
import { processAlertJob } from "../../domain/alerts/processing.js";
import { createReactions } from "../../domain/alerts/reactions.js";
import { ferretDbIdReads } from "./mongo-ferretdb-id-reads.js";
import { createMongoAlertsStores } from "./mongo-stores.js";

/**
 * Issue 25 item 4: FerretDB 1.x reads a document by `_id` with an expression that its own unique
 * index on `_id` does not match, so every read of an existing alert (a repeat, a resolve) scans
 * the collection's table. scripts/ferretdb-postgres-id-indexes.sql (PostgreSQL backend: FerretDB
 * queries `_jsonb->'_id' @> '"…"'`, which only a GIN index answers) and
 * scripts/ferretdb-sqlite-id-indexes.mjs (SQLite backend: FerretDB queries
 * `_ferretdb_sjson->'$._id'`, its index is on `_ferretdb_sjson->"_id"`) add the index that
 * matches. These tests show the scan without them and the index in use with them, on the real
 * processing path: from PostgreSQL's own counters, and from FerretDB's `explain` on SQLite (the
 * plan of the very query it runs).
 */
const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const DB = "tocsin";
const server = postgresFor("ferretdb-postgres");
// FerretDB's binary is there when the global setup started one (not with MONGO_URL_TEST).
const ferretDbHere = inject("mongoUrl") !== "" && !process.env.MONGO_URL_TEST;

/** FerretDB on `backend`, a client and the stores over it; `restart()` keeps the data. */
function ferretDbUnderTest(backend: () => { postgresUrl?: string; sqliteDir?: string }) {
  let ferret: Backend | undefined;
  let client: MongoClient | undefined;
  const t = {
    db: undefined as unknown as Db,
    stores: undefined as unknown as AlertsStores,
    async start() {
      ferret = await startFerretDb(repoRoot, backend());
      if (!ferret) throw new Error("no FerretDB binary (scripts/install-ferretdb.sh)");
      client = await new MongoClient(ferret.url).connect();
      t.db = client.db(DB);
      t.stores = await createMongoAlertsStores(t.db);
    },
    async stop() {
      await client?.close();
      await ferret?.stop();
    },
    async restart() {
      await t.stop();
      await t.start();
    },
    deps() {
      const stores = t.stores;
      return {
        stores,
        jobs: { enqueueIncident: async () => {}, enqueueFollowUps: async () => {} },
        clock: systemClock,
        reactions: createReactions([], (projectId: number) => stores.incidents.settings(projectId)),
      };
    },
    /** Processes a job of project 7 for `fingerprint`. */
    process: (fingerprint: string, fields: Partial<NormalizedAlert> = {}) => processAlertJob(t.deps(), job(fingerprint, fields)),
    /** A new alert, a repeat and its recovery. */
    async lifecycle(fingerprint: string) {
      await t.process(fingerprint);
      await t.process(fingerprint);
      await t.process(fingerprint, { endedAt: new Date().toISOString() });
    },
    /** Another project's history, `n` alerts and their signposts, written straight to the collections. */
    async history(n: number) {
      const ids = Array.from({ length: n }, (_, i) => `filler-${i}`);
      await t.db
        .collection<{ _id: string }>("alerts")
        .insertMany(ids.map((id, i) => ({ _id: id, project_id: 999, iid: i + 1, open_key: `closed:${id}`, create_op: id })));
      await t.db.collection<{ _id: string }>("open_alerts").insertMany(ids.map((id, i) => ({ _id: `999:${id}`, alert_id: i })));
    },
    read: async (id: string) => expect(await t.db.collection<{ _id: string }>("alerts").findOne({ _id: id })).not.toBeNull(),
  };
  return t;
}

let seq = 0;
function job(fingerprint: string, fields: Partial<NormalizedAlert>): ProcessAlertJob {
  const id = `fid-${++seq}`;
  const alert = { title: `Alert ${fingerprint}`, hosts: [], severity: "high" as const, source: "tool" };
  return {
    jobId: id,
    requestId: id,
    projectId: 7,
    integrationId: 1,
    alert: { ...alert, startedAt: new Date().toISOString(), payload: { fingerprint }, fingerprint, ...fields },
  };
}

describe.skipIf(!server)("FerretDB on PostgreSQL: look-ups by _id served by an index", () => {
  const SCRIPT = join(repoRoot, "scripts", "ferretdb-postgres-id-indexes.sql");
  let pg: PostgresDatabase;
  const f = ferretDbUnderTest(() => ({ postgresUrl: pg.url }));

  beforeAll(async () => {
    pg = freshPostgresDatabase(server as string, "tocsin_test_fpg");
    await f.start();
    await f.lifecycle("first"); // creates every collection of the hot path
  });
  afterAll(async () => {
    await f.stop();
    pg?.drop();
  });

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

  it("without the script, a find by _id reads the whole table", { timeout: 30_000 }, async () => {
    const table = tableOf("alerts");
    const [first] = await f.db.collection<{ _id: string }>("alerts").find({}).limit(1).toArray();
    const before = scans(table).seqScans;
    for (let i = 0; i < 3; i++) await f.read(String(first?._id));
    await until(() => scans(table).seqScans >= before + 4, 25_000, 200);
  });

  it("the script indexes every collection's _id, is safe to run again, and processing's reads use it", {
    timeout: 90_000,
  }, async () => {
    pg.file(SCRIPT, { schema: DB });
    pg.file(SCRIPT, { schema: DB });
    // As the script's header asks: FerretDB's pooled connections keep their plan cache mode.
    await f.restart();
    const tables = pg.sql(`SELECT tablename FROM pg_tables WHERE schemaname = '${DB}' AND tablename NOT LIKE '\\_ferretdb\\_%'`);
    const indexed = pg.sql(`SELECT tablename FROM pg_indexes WHERE schemaname = '${DB}' AND indexname LIKE '%_tocsin_id_gin'`);
    expect(tables.split("\n").sort()).toEqual(indexed.split("\n").sort());
    expect(tables.split("\n")).toEqual(expect.arrayContaining([tableOf("alerts"), tableOf("open_alerts")]));
    // GIN's pending list at its smallest, but the default on the churning sequences.
    const defs = pg.sql(
      `SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = '${DB}' AND indexname LIKE '%_tocsin_id_gin'`,
    );
    for (const line of defs.split("\n")) {
      const [table, def] = line.split("|");
      expect(def?.includes("gin_pending_list_limit='64'"), line).toBe(table !== tableOf("counters"));
    }

    // While the tables are small, more than the five runs after which PostgreSQL may switch a
    // statement to its generic plan (a scan, kept however large the table grows).
    const [alerts, open] = [tableOf("alerts"), tableOf("open_alerts")];
    const start = scans(alerts);
    for (let i = 0; i < 3; i++) await f.process("small");
    const [small] = await f.db.collection<{ _id: string }>("alerts").find({}).limit(1).toArray();
    for (let i = 0; i < 20; i++) await f.read(String(small?._id));
    // Each read is a scan or an index scan; once all are counted, the counters are settled.
    const before = await until(
      () => {
        const [a, o] = [scans(alerts), scans(open)];
        return a.gin + a.seqScans >= start.gin + start.seqScans + 21 && { alerts: a.gin, open: o.gin };
      },
      25_000,
      200,
    );
    await f.history(3000);

    // A repeat and a recovery read the open fingerprint's signpost and the alert by _id.
    await f.lifecycle("second");
    const settled = await until(
      () => {
        const [a, o] = [scans(alerts), scans(open)];
        return a.gin > before.alerts && o.gin > before.open && a;
      },
      25_000,
      200,
    );

    // Ten reads by _id in the grown table: ten index scans and no table scan.
    for (let i = 0; i < 10; i++) await f.read(`filler-${i * 97}`);
    await until(() => scans(alerts).gin >= settled.gin + 10, 25_000, 200);
    expect(scans(alerts).seqScans).toBe(settled.seqScans);
  });

  it("refuses a database that FerretDB has not created", () => {
    expect(() => pg.file(SCRIPT, { schema: "nothing_here" })).toThrow(/no schema nothing_here/);
  });
});

describe.skipIf(!ferretDbHere)("FerretDB on SQLite: look-ups by _id served by an index", () => {
  const SCRIPT = join(repoRoot, "scripts", "ferretdb-sqlite-id-indexes.mjs");
  const files = mkdtempSync(join(tmpdir(), "tocsin-ferretdb-files-"));
  const f = ferretDbUnderTest(() => ({ sqliteDir: files }));
  const indexDb = () => execFileSync(process.execPath, [SCRIPT, join(files, `${DB}.sqlite`)], { encoding: "utf8" });

  beforeAll(async () => {
    await f.start(); // alert-service's start creates every collection of the hot path
    await f.lifecycle("first");
    await f.history(500);
  }, 60_000);
  afterAll(async () => {
    await f.stop();
    rmSync(files, { recursive: true, force: true });
  });

  /** SQLite's plan, as FerretDB explains it, of a `find` by `_id` in each collection. */
  async function plans(): Promise<Record<string, string>> {
    const names = (await f.db.listCollections().toArray()).map((c) => c.name).sort();
    const out: Record<string, string> = {};
    for (const name of names) {
      const plan = await f.db.command({ explain: { find: name, filter: { _id: "some-id" } } });
      out[name] = (plan.queryPlanner.Plan as string[]).join("; ");
    }
    return out;
  }

  it("without the script, every collection's find by _id is a scan", async () => {
    const before = await plans();
    expect(Object.keys(before)).toEqual(
      expect.arrayContaining([
        "alerts",
        "open_alerts",
        "processed_jobs",
        "job_starts",
        "counters",
        "counters_claims",
        "alert_settings",
      ]),
    );
    for (const [name, plan] of Object.entries(before)) expect(plan, name).toMatch(/SCAN/);
    expect(await ferretDbIdReads(f.db)).toBe("scan"); // what alert-service warns about at start
  });

  it("the script indexes every collection's _id, is safe to run again, and processing keeps working", async () => {
    expect(indexDb()).toMatch(/collection tables of .* indexed by _id/);
    expect(indexDb()).toMatch(/indexed by _id/);
    // FerretDB's pooled connections see the new schema at their next statement; a restart makes sure.
    await f.restart();
    for (const [name, plan] of Object.entries(await plans()))
      expect(plan, name).toMatch(/SEARCH .* USING INDEX \S+_tocsin_id \(<expr>=\?\)/);
    expect(await ferretDbIdReads(f.db)).toBe("indexed");
    await f.lifecycle("second");
    expect(await f.stores.alerts.findOpen(7, "second")).toBeUndefined();
    await f.process("third");
    expect((await f.stores.alerts.findOpen(7, "third"))?.title).toBe("Alert third");
    await f.read("filler-42");
  });

  it("refuses a file that is not there", () => {
    expect(() => execFileSync(process.execPath, [SCRIPT, join(files, "nothing.sqlite")], { stdio: "pipe" })).toThrow(/usage/);
  });
});
