// bench/growth.mjs helper: the parts of alert-service's build (and of the libraries it uses) that
// the bench drives directly — the stores, the processing use-case, the checkpoint thread — loaded
// from `alert-service/dist` (`npm run build` first).
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "../alert-system.mjs";

const dist = (p) => pathToFileURL(join(ROOT, "alert-service/dist", p)).href;

export const { openSqlite } = await import("@tocsin/store");
export const { createLogger, uuidV7 } = await import("@tocsin/core");
export const { startCheckpointThread } = await import(dist("thread/checkpoint-thread.js"));
export const { createSqliteAlertsStores } = await import(dist("store/alerts/sqlite-stores.js"));
export const { createMongoAlertsStores } = await import(dist("store/alerts/mongo-stores.js"));
export const { processAlertJobs } = await import(dist("domain/alerts/processing.js"));
export const { createReactions } = await import(dist("domain/alerts/reactions.js"));
