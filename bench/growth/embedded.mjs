// bench/growth.mjs helper: the embedded mode's store — alert.db (SQLite) in a temporary DATA_DIR,
// opened as alert-service opens it (--wal: who checkpoints its WAL; --cache-mib: an experiment).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, createSqliteAlertsStores, openSqlite, startCheckpointThread } from "./service.mjs";

/** Resolves to `{ stores, concurrency, target, close() }` (one batch at a time, to `--embedded` alerts). */
export async function openEmbedded(opt) {
  const dir = mkdtempSync(join(tmpdir(), "tocsin-growth-"));
  const file = join(dir, "alert.db");
  const db = openSqlite(file, { checkpoints: opt.wal });
  // As the processing thread does (thread/worker.ts): alert.db's checkpoints in a thread of their own.
  const checkpointer = opt.wal === "elsewhere" ? startCheckpointThread([file], createLogger("growth", "info")) : undefined;
  // An experiment: SQLite's page cache for this connection (default 2 MB).
  if (opt["cache-mib"]) db.pragma(`cache_size = -${Number(opt["cache-mib"]) * 1024}`);
  return {
    stores: createSqliteAlertsStores(db),
    concurrency: 1,
    target: Number(opt.embedded),
    close: async () => {
      await checkpointer?.stop();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
