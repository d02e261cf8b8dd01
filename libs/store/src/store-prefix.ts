import { createHash } from "node:crypto";
import { resolve } from "node:path";

/**
 * A key prefix that names one data store, for what several processes share through Redis (queues,
 * event channels): `tocsin:<mongo db>` with MongoDB, else `tocsin:sqlite-<hash of DATA_DIR>`, so
 * that exactly the replicas sharing a store meet, even when several deployments (or test systems)
 * share one Redis.
 */
export function storePrefix(store: { mongoDb: string | undefined; dataDir: string }): string {
  if (store.mongoDb) return `tocsin:${store.mongoDb}`;
  return `tocsin:sqlite-${createHash("sha1").update(resolve(store.dataDir)).digest("hex").slice(0, 12)}`;
}
