// bench/growth.mjs helper: MongoDB mode's store — a private FerretDB 1.24 (SQLite backend, or
// PostgreSQL with --ferret postgresql), or the server of --mongo-url — with the driver's command
// monitoring feeding --profile, and --id-indexes (FerretDB restarted on the same data).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { freshPostgres, ROOT, startFerretDb } from "../alert-system.mjs";
import { profile } from "./samples.mjs";
import { createMongoAlertsStores } from "./service.mjs";

const DB_NAME = "tocsin_growth";

/**
 * Resolves to `{ stores, concurrency, target, afterWarmUp(), close() }` (`--concurrency` batches at
 * a time, to `--mongo` alerts); `afterWarmUp` resolves to the stores after a restart, if any.
 */
export async function openMongo(opt) {
  const pg = !opt["mongo-url"] && opt.ferret === "postgresql" ? freshPostgres(opt["postgres-url"], "tocsin_growth") : undefined;
  // FerretDB/SQLite's database files, kept across the restart after --id-indexes.
  const files = !opt["mongo-url"] && opt.ferret === "sqlite" ? mkdtempSync(join(tmpdir(), "tocsin-growth-ferretdb-")) : undefined;
  const connect = async () => {
    const ferret = opt["mongo-url"]
      ? { url: opt["mongo-url"], stop: async () => {} }
      : await startFerretDb({ handler: opt.ferret, postgresUrl: pg?.url, sqliteDir: files });
    const client = await new MongoClient(ferret.url, { monitorCommands: opt.profile }).connect();
    const started = new Map();
    client.on("commandStarted", (e) => started.set(e.requestId, `${e.commandName} ${e.command[e.commandName]}`));
    client.on("commandSucceeded", (e) => {
      const key = started.get(e.requestId);
      started.delete(e.requestId);
      if (key) profile.set(key, (profile.get(key) ?? 0) + e.duration);
    });
    const stores = await createMongoAlertsStores(client.db(DB_NAME));
    const close = async () => {
      await client.close();
      await ferret.stop();
    };
    return { stores, close };
  };
  let conn = await connect();
  return {
    stores: conn.stores,
    concurrency: Number(opt.concurrency),
    target: Number(opt.mongo),
    // With --id-indexes, once the warm-up has created every collection of the hot path: the
    // script, then FerretDB restarted on the same database (as the script's header asks).
    afterWarmUp: async () => {
      if (!opt["id-indexes"]) return undefined;
      if (pg) pg.idIndexes(DB_NAME);
      else
        execFileSync(process.execPath, [
          join(ROOT, "scripts", "ferretdb-sqlite-id-indexes.mjs"),
          join(files, `${DB_NAME}.sqlite`),
        ]);
      await conn.close();
      conn = await connect();
      return conn.stores;
    },
    close: async () => {
      await conn.close();
      pg?.drop();
      if (files) rmSync(files, { recursive: true, force: true });
    },
  };
}
