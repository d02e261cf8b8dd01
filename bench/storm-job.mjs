// The process-alert job of a storm's `i`-th distinct alert, as the lane workers hand it to
// `processAlertJobs`: a normalized ~150-byte alert with a fingerprint of its own (SHA-1 of its
// title, as the intake makes it), or `fingerprint` when given. Shared by the benches that drive
// processing without the queue (sqlite-processing.mjs, wal-frames.mjs, processing-instructions.mjs),
// which also open processing the same way (openProcessing).
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** `id`: the job id, which is also its request id (time-ordered UUIDs from the gateway, or a caller's own). */
export function stormJob(tag, i, id, fingerprint) {
  const title = `storm ${tag}-${i}`;
  const payload = {
    title,
    description: "CPU above 90% on the web tier",
    severity: "high",
    service: "web",
    monitoring_tool: "storm",
  };
  return {
    jobId: id,
    requestId: id,
    projectId: 1,
    integrationId: 7,
    alert: {
      title,
      description: payload.description,
      service: "web",
      monitoringTool: "storm",
      hosts: [],
      severity: "high",
      startedAt: new Date().toISOString(),
      fingerprint: fingerprint ?? createHash("sha1").update(title).digest("hex"),
      source: "storm",
      payload,
    },
  };
}

/**
 * Processing on a SQLite `alert.db` at `file`, from the build at `root` (a checkout's directory):
 * the build's own opener and stores, `processAlertJobs`, and its deps without a queue (no incident
 * or follow-up jobs, which the storm's default settings never make). Options: `gateOf` makes a
 * silences gate for the reactions on the opened database; `channels` adds the channels reactor
 * over the build's destination store in the same file (a project without destinations, as a
 * storm's: what processing pays for the reactor's reads), its jobs dropped. Without them, no
 * reactor. Builds older than issue 21 have no reactions; their deps go without.
 */
export async function openProcessing(root, file, { gateOf, channels = false } = {}) {
  const at = (path) => pathToFileURL(join(root, path)).href;
  const store = join(root, "libs/store/dist/index.js");
  const { openSqlite } = await import(existsSync(store) ? pathToFileURL(store).href : "@tocsin/store");
  const { createSqliteAlertsStores } = await import(at("alert-service/dist/store/alerts/sqlite-stores.js"));
  const { processAlertJobs } = await import(at("alert-service/dist/domain/alerts/processing.js"));
  const reactionsFile = join(root, "alert-service/dist/domain/alerts/reactions.js");
  const { createReactions } = existsSync(reactionsFile) ? await import(pathToFileURL(reactionsFile).href) : {};
  const db = openSqlite(file);
  const stores = createSqliteAlertsStores(db);
  const gate = gateOf ? await gateOf(db, stores) : undefined;
  const reactors = [];
  if (channels) {
    const { channelsReactor } = await import(at("alert-service/dist/domain/channels/reactor.js"));
    const { createSqliteDestinationStore } = await import(at("alert-service/dist/store/channels/sqlite-destination-store.js"));
    const drop = async () => undefined;
    reactors.push(
      channelsReactor({ destinations: createSqliteDestinationStore(db), jobs: { enqueue: drop, enqueueLater: drop } }),
    );
  }
  const deps = {
    stores,
    clock: { now: () => new Date() },
    jobs: { enqueueIncident: async () => {}, enqueueFollowUps: async () => {} },
    ...(createReactions
      ? { reactions: createReactions(reactors, (projectId) => stores.incidents.settings(projectId), gate) }
      : {}),
  };
  return { db, stores, deps, processAlertJobs };
}
