import { join } from "node:path";
import { parentPort, threadId, workerData } from "node:worker_threads";
import { createLogger, systemClock } from "@tocsin/core";
import { createAuthClient } from "@tocsin/grpc";
import { openSqlite } from "@tocsin/store";
import { startTracing } from "@tocsin/telemetry";
import { createLocalChannelReactorDeps } from "../channels-runtime.js";
import { createOncallDirectory } from "../clients/oncall-directory.js";
import { createProjectMembers } from "../clients/project-members.js";
import { createLocalNotifier } from "../mail-runtime.js";
import { createProcessing, openAlertQueues } from "../processing-runtime.js";
import { BULLMQ_TURNS } from "../queue/lane-worker.js";
import { SqliteJobQueue } from "../queue/sqlite/sqlite-job-queue.js";
import { createSqliteAlertsStores } from "../store/alerts/sqlite-stores.js";
import { createSqliteEscalationStore } from "../store/paging/sqlite-escalation-store.js";
import { createSqliteSilenceStore } from "../store/silences/sqlite-silence-store.js";
import { startCheckpointThread } from "./checkpoint-thread.js";
import type { FromThread, ThreadData, ToThread } from "./messages.js";

/**
 * The processing thread (see thread/host.ts): runs the alert lanes and the timer queue on its
 * own connections to `alert.db`, `alert-queue.db`, `alert-timers.db`, `mail-queue.db` and
 * `channel-queue.db`, and tells the main thread of ended jobs, new mail and delivery jobs and its log lines.
 */
const port = parentPort;
if (!port) throw new Error("thread/worker.ts runs as a worker thread (see thread/host.ts)");
const { config, logLevel, batchJobs, redis } = workerData as ThreadData;
/** BullMQ's queues with REDIS_URL (this thread only adds to the mail and channel queues; the main thread runs them). */
const bullmq = redis ? { redisUrl: redis.url, ...(redis.prefix ? { queuePrefix: redis.prefix } : {}) } : {};
const send = (message: FromThread) => port.postMessage(message);

const logger = createLogger("alert-service", logLevel, { write: (line: string) => send({ type: "log", line }) }).child({
  thread: "processing",
});
const tracing = await startTracing(config.tracing);
const alertDb = join(config.dataDir, "alert.db");
/**
 * The local lanes' file (without REDIS_URL): the accepting thread adds to it, this thread ends its
 * jobs. The checkpoints of it and of `alert.db` run in a thread of their own, not in this
 * thread's commits (checkpoint-thread.ts): beside an accepting thread, the queue file's
 * checkpoints in the job ends cost the drain 5–21 % (bench/notes/2026-11-29-drain.md).
 */
const queueDb = redis ? undefined : join(config.dataDir, "alert-queue.db");
const sqlite = openSqlite(alertDb, { checkpoints: "elsewhere" });
const checkpoints = startCheckpointThread(queueDb ? [alertDb, queueDb] : [alertDb], logger);
const mail = createLocalNotifier({
  config,
  ...bullmq,
  sqlite,
  clock: systemClock,
  logger,
  ...(tracing ? { tracing } : {}),
  onCommit: (lanes) => send({ type: "mail", lanes }),
});
const channels = createLocalChannelReactorDeps({
  config,
  ...bullmq,
  sqlite,
  logger,
  ...(tracing ? { tracing } : {}),
  onCommit: (lanes) => send({ type: "channels", lanes }),
});
// Paging's clients: settings-service (policies, who is on call) and auth-service (members).
const directory = createOncallDirectory(config.settingsServiceAddr, tracing);
const auth = createAuthClient(config.authServiceAddr, tracing);
const { lanes, queue, timers } = openAlertQueues({
  dataDir: config.dataDir,
  ...bullmq,
  logger,
  tracing,
  onEnded: (jobs) => send({ type: "ended", jobs }),
  // The thread's SQLite stores run one batch at a time: one loop takes the lanes' jobs together.
  mergeLanes: true,
  ...(queueDb ? { checkpoints: "elsewhere" as const } : {}),
});
// The one composition root of processing, as in the main thread (processing-runtime.ts).
const processing = createProcessing({
  stores: createSqliteAlertsStores(sqlite),
  paging: {
    escalations: createSqliteEscalationStore(sqlite),
    directory,
    members: createProjectMembers(auth),
    mail: mail.pages,
    secondMs: config.pagingSecondMs,
  },
  queue,
  timers,
  notifier: mail.notifier,
  channels,
  clock: systemClock,
  logger,
  autoResolveMinuteMs: config.autoResolveMinuteMs,
  // With BullMQ a batch also waits for Redis (its follow-up jobs): several lanes' batches overlap those waits.
  turns: redis ? BULLMQ_TURNS : 1,
  batchJobs,
  silences: createSqliteSilenceStore(sqlite),
});

async function stop(): Promise<void> {
  processing.stop();
  await queue.close();
  await timers.close();
  await mail.close();
  await channels.close();
  directory.close();
  auth.close();
  await checkpoints.stop();
  sqlite.close();
  await tracing?.shutdown();
  send({ type: "stopped" });
  port?.close();
}

port.on("message", (message: ToThread) => {
  if (message.type === "wake" && lanes instanceof SqliteJobQueue) lanes.wake(message.lanes);
  else if (message.type === "silences") processing.silencesChanged(message.projectId);
  else if (message.type === "stop") void stop();
});
await processing.start();
send({ type: "ready", threadId });
