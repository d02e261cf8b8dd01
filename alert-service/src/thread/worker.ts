import { join } from "node:path";
import { parentPort, threadId, workerData } from "node:worker_threads";
import { createLogger, systemClock } from "@tocsin/core";
import { openSqlite } from "@tocsin/store";
import { startTracing } from "@tocsin/telemetry";
import { createJobHandlers } from "../domain/alerts/use-cases.js";
import { createLocalNotifier } from "../mail-runtime.js";
import { createAlertJobs, createJobWorker, createTimerRunner } from "../queue/jobs.js";
import { LocalJobQueue } from "../queue/local-queue.js";
import { tracedQueue } from "../queue/traced-queue.js";
import { createSqliteAlertsStores } from "../store/alerts/sqlite-stores.js";
import type { FromThread, ThreadData, ToThread } from "./messages.js";

/**
 * The processing thread (see thread/host.ts): runs the alert lanes and the timer queue on its
 * own connections to `alert.db`, `alert-queue.db`, `alert-timers.db` and `mail-queue.db`, and
 * tells the main thread of ended jobs, new mail jobs and its log lines.
 */
const port = parentPort;
if (!port) throw new Error("thread/worker.ts runs as a worker thread (see thread/host.ts)");
const { config, logLevel, batchJobs } = workerData as ThreadData;
const send = (message: FromThread) => port.postMessage(message);

const logger = createLogger("alert-service", logLevel, { write: (line: string) => send({ type: "log", line }) }).child({
  thread: "processing",
});
const tracing = await startTracing(config.tracing);
const sqlite = openSqlite(join(config.dataDir, "alert.db"));
const stores = createSqliteAlertsStores(sqlite);
const mail = createLocalNotifier({
  config,
  sqlite,
  clock: systemClock,
  logger,
  ...(tracing ? { tracing } : {}),
  onCommit: (lanes) => send({ type: "mail", lanes }),
});
const lanes = new LocalJobQueue({
  file: join(config.dataDir, "alert-queue.db"),
  logger: logger.child({ component: "alert-queue" }),
  onEnded: (jobs) => send({ type: "ended", jobs }),
});
const queue = tracedQueue(lanes, tracing, { system: "local", destination: "alerts" });
const timers = tracedQueue(
  new LocalJobQueue({
    file: join(config.dataDir, "alert-timers.db"),
    logger: logger.child({ component: "alert-timers" }),
    lanes: 1,
    ordered: false,
  }),
  tracing,
  { system: "local", destination: "alert-timers" },
);
const handlers = createJobHandlers({
  stores,
  jobs: createAlertJobs(queue, timers),
  clock: systemClock,
  notifications: mail.notifier,
  autoResolveMinuteMs: config.autoResolveMinuteMs,
});

async function stop(): Promise<void> {
  await queue.close();
  await timers.close();
  await mail.close();
  sqlite.close();
  await tracing?.shutdown();
  send({ type: "stopped" });
  port?.close();
}

port.on("message", (message: ToThread) => {
  if (message.type === "wake") lanes.wake(message.lanes);
  else if (message.type === "stop") void stop();
});
const worker = createJobWorker(handlers, logger.child({ component: "alert-worker" }), { takeTurns: true, maxJobs: batchJobs });
await queue.start(worker);
await timers.start(createTimerRunner(queue));
send({ type: "ready", threadId });
