import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Clock, type Logger, type RunningService, type ServiceDeps, systemClock } from "@tocsin/core";
import { connectableAddress, createGrpcServer, serviceDependency, startHealthPolicy } from "@tocsin/grpc";
import { alertSilencesV1, alertV1, PROTO_FILES } from "@tocsin/proto";
import { openSqlite } from "@tocsin/store";
import { startTracing, type Tracing } from "@tocsin/telemetry";
import type Database from "better-sqlite3";
import { Redis } from "ioredis";
import { type Db, MongoClient } from "mongodb";
import { createAuthClient } from "./clients/auth-client.js";
import { createIntegrationKeys } from "./clients/integration-keys.js";
import { createProjectAccess } from "./clients/project-access.js";
import { type AlertServiceConfig, mongoDbName, queuePrefix } from "./config.js";
import type { AlertsStores } from "./domain/alerts/ports.js";
import { type AlertsUseCases, createAlertsUseCases } from "./domain/alerts/use-cases.js";
import type { IntegrationStore } from "./domain/integrations/ports.js";
import { createIntegrationsUseCases } from "./domain/integrations/use-cases.js";
import type { Notifier } from "./domain/mail/pipeline.js";
import type { IntegrationDirectory, ProjectAccess } from "./domain/ports.js";
import type { SilenceStore } from "./domain/silences/ports.js";
import { createSilencesUseCases } from "./domain/silences/use-cases.js";
import { alertHandlers } from "./handlers/alerts.js";
import { integrationHandlers } from "./handlers/integrations.js";
import { silenceHandlers } from "./handlers/silences.js";
import { createFlexibleLimiter } from "./limits/flexible-limiter.js";
import { createMailRuntime } from "./mail-runtime.js";
import { BullmqJobQueue } from "./queue/bullmq-queue.js";
import { createAlertJobs, createJobWorker, createTimerRunner, THREAD_JOB_BATCH } from "./queue/jobs.js";
import { LocalJobQueue } from "./queue/local-queue.js";
import type { JobQueue } from "./queue/queue.js";
import { tracedQueue } from "./queue/traced-queue.js";
import { createMongoAlertsStores } from "./store/alerts/mongo-stores.js";
import { createSqliteAlertsStores } from "./store/alerts/sqlite-stores.js";
import { createMongoIntegrationStore } from "./store/integrations/mongo-integration-store.js";
import { createSqliteIntegrationStore } from "./store/integrations/sqlite-integration-store.js";
import { createMongoSilenceStore } from "./store/silences/mongo-silence-store.js";
import { createSqliteSilenceStore } from "./store/silences/sqlite-silence-store.js";
import { type ProcessingThread, startProcessingThread } from "./thread/host.js";
import type { ThreadData } from "./thread/messages.js";

const SERVICE_NAME = "alert.v1.AlertService";
const SILENCE_SERVICE_NAME = "alert.v1.SilenceService";

interface Storage {
  sqlite?: Database.Database;
  mongo?: Db;
  integrations: IntegrationStore;
  silences: SilenceStore;
  close(): Promise<void>;
}

/** SQLite `${DATA_DIR}/alert.db` (WAL) by default; MongoDB when MONGO_URL is set. */
async function openStorage(config: AlertServiceConfig): Promise<Storage> {
  if (config.mongoUrl) {
    const client = await MongoClient.connect(config.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
    const mongo = client.db(mongoDbName(config));
    return {
      mongo,
      integrations: await createMongoIntegrationStore(mongo),
      silences: await createMongoSilenceStore(mongo),
      close: () => client.close(),
    };
  }
  const sqlite = openSqlite(join(config.dataDir, "alert.db"));
  return {
    sqlite,
    integrations: createSqliteIntegrationStore(sqlite),
    silences: createSqliteSilenceStore(sqlite),
    close: async () => void sqlite.close(),
  };
}

/**
 * alert-service: opens its storage, wires auth-service, integrations and the alerts runtime (queue
 * workers included), binds gRPC on ALERT_SERVICE_ADDR (port 0 allowed) and serves health by the
 * one policy (its store, its queue and auth-service).
 */
export async function createAlertService(
  config: AlertServiceConfig,
  { logger, clock }: ServiceDeps,
): Promise<RunningService & { metricsPort: number | undefined }> {
  const storage = await openStorage(config);
  const tracing = await startTracing(config.tracing);
  const auth = createAuthClient(config.authServiceAddr, tracing);
  const projects = createProjectAccess(auth, clock);
  const integrations = createIntegrationsUseCases({
    store: storage.integrations,
    keys: createIntegrationKeys(auth),
    projects,
    clock,
    logger: logger.child({ module: "integrations" }),
    externalUrl: config.externalUrl,
    defaultRateLimitPerMinute: config.webhookRateLimitPerMinute,
  });
  const mail = await createMailRuntime({
    config,
    ...(storage.sqlite ? { sqlite: storage.sqlite } : {}),
    ...(storage.mongo ? { mongo: storage.mongo } : {}),
    ...(config.redisUrl ? { redisUrl: config.redisUrl, queuePrefix: queuePrefix(config) } : {}),
    clock,
    logger,
    ...(tracing ? { tracing } : {}),
  });
  const runtime = await createAlertsRuntime({
    ...(storage.sqlite ? { sqlite: storage.sqlite } : {}),
    ...(storage.mongo ? { mongo: storage.mongo } : {}),
    dataDir: config.dataDir,
    ...(config.redisUrl ? { redisUrl: config.redisUrl, queuePrefix: queuePrefix(config) } : {}),
    projects,
    integrations: integrations.directory,
    clock,
    logger,
    notifications: mail.notifier,
    defaultRateLimitPerMinute: config.webhookRateLimitPerMinute,
    usage: integrations.usage,
    autoResolveMinuteMs: config.autoResolveMinuteMs,
    ...(tracing ? { tracing } : {}),
    // The processing thread has its own clock (the system's): a test's clock keeps processing here.
    ...(config.processingThread && clock === systemClock
      ? {
          processingThread: {
            config: {
              dataDir: config.dataDir,
              tracing: config.tracing,
              mail: config.mail,
              autoResolveMinuteMs: config.autoResolveMinuteMs,
            },
            onMail: (lanes: number[]) => mail.wake(lanes),
          },
        }
      : {}),
  });
  const silences = createSilencesUseCases({ store: storage.silences, projects, clock, newId: randomUUID });
  const server = createGrpcServer({
    logger,
    protoFiles: [PROTO_FILES.alert, PROTO_FILES.silences],
    serviceNames: [SERVICE_NAME, SILENCE_SERVICE_NAME],
    tracing,
  });
  server.add(alertV1.AlertServiceService, { ...integrationHandlers(integrations), ...alertHandlers(runtime.useCases, tracing) });
  server.add(alertSilencesV1.SilenceServiceService, silenceHandlers(silences));
  let port: number;
  try {
    await runtime.start();
    await mail.start({ alerts: runtime.stores.alerts, projects });
    port = await server.listen(config.listenAddr);
  } catch (err) {
    await runtime.stop();
    await mail.stop();
    auth.close();
    await storage.close();
    await tracing?.shutdown();
    throw err;
  }
  const health = await startHealthPolicy(
    server,
    [
      { name: "store", check: () => storage.integrations.ping() },
      { name: "queue", check: () => runtime.healthy() },
      { name: "mail queue", check: () => mail.healthy() },
      serviceDependency("auth-service", config.authServiceAddr),
    ],
    { logger },
  );
  let stopping: Promise<void> | undefined;
  return {
    address: connectableAddress(config.listenAddr, port),
    metricsPort: mail.metricsPort(),
    stop() {
      stopping ??= (async () => {
        health.stop();
        await server.shutdown(5_000);
        await runtime.stop();
        await mail.stop();
        auth.close();
        await storage.close();
        await tracing?.shutdown();
      })();
      return stopping;
    },
  };
}

/** The alerts half of alert-service without gRPC: stores, queue, workers, use-cases (tests boot it alone). */
export interface AlertsRuntimeOptions {
  /** Exactly one of sqlite / mongo holds the alert data. */
  sqlite?: Database.Database;
  mongo?: Db;
  /** Where the durable local queue keeps `alert-queue.db` (used when redisUrl is unset). */
  dataDir: string;
  redisUrl?: string;
  projects: ProjectAccess;
  integrations: IntegrationDirectory;
  clock: Clock;
  logger: Logger;
  /** Alert e-mails (section 9); without it no e-mail is sent. */
  notifications?: Notifier;
  /** Budget of an integration that sets none (WEBHOOK_RATE_LIMIT_PER_MINUTE); unset or 0 = unlimited. */
  defaultRateLimitPerMinute?: number;
  /** Length of one auto-resolve minute (60 000 ms; shorter in tests). */
  autoResolveMinuteMs?: number;
  /** token_last_used_at of integrations (told of every accepted request). */
  usage?: { used(projectId: number, integrationId: number): void };
  /** Spans of the queue (producer at enqueue, consumer per run), when tracing is on. */
  tracing?: Tracing;
  /** Tests: override the local queue file (e.g. `:memory:`) or the BullMQ key prefix. */
  queueFile?: string;
  queuePrefix?: string;
  /**
   * ALERT_PROCESSING_THREAD: the alert lanes and the timer queue run in a worker thread (see
   * thread/host.ts) when the alerts are in SQLite and the queue is the local one on a file;
   * ignored otherwise. `onMail`: the thread committed mail jobs (MailRuntime.wake).
   */
  processingThread?: { config: ThreadData["config"]; onMail(lanes: number[]): void };
}

export interface AlertsRuntime {
  useCases: AlertsUseCases;
  /** The stores, for housekeeping and tests. */
  stores: AlertsStores;
  /** Starts the queue workers and the housekeeping timer. */
  start(): Promise<void>;
  /** Stops the workers (running jobs finish) and closes the queue. */
  stop(): Promise<void>;
  healthy(): Promise<boolean>;
  /** The processing thread, when the lanes run in one (see `processingThread`). */
  thread(): ProcessingThread | undefined;
}

/** How long processed-job records (and the ops of idempotent re-runs) are kept. */
const JOB_RECORD_TTL_MS = 48 * 3600_000;

async function storesOf(opts: AlertsRuntimeOptions): Promise<AlertsStores> {
  if (opts.sqlite && opts.mongo) throw new Error("alerts runtime: give sqlite or mongo, not both");
  if (opts.sqlite) return createSqliteAlertsStores(opts.sqlite);
  if (opts.mongo) return createMongoAlertsStores(opts.mongo);
  throw new Error("alerts runtime: a data store (sqlite or mongo) is required");
}

function queueOf(opts: AlertsRuntimeOptions, onCommit: (lanes: number[]) => void, threaded: boolean): JobQueue {
  const logger = opts.logger.child({ component: "alert-queue" });
  if (opts.redisUrl)
    return new BullmqJobQueue({ redisUrl: opts.redisUrl, logger, ...(opts.queuePrefix ? { prefix: opts.queuePrefix } : {}) });
  const file = opts.queueFile ?? join(opts.dataDir, "alert-queue.db");
  if (file !== ":memory:") mkdirSync(opts.dataDir, { recursive: true });
  // With the processing thread, its connection checkpoints the WAL (its job-end commits), not the accepting one.
  return new LocalJobQueue({ file, logger, onCommit, checkpoints: !threaded });
}

/** Whether the lanes run in the processing thread: asked for, SQLite alerts, a local queue on a file. */
function inThread(opts: AlertsRuntimeOptions) {
  const onFile = opts.queueFile === undefined || opts.queueFile !== ":memory:";
  return opts.processingThread && opts.sqlite && !opts.redisUrl && onFile ? opts.processingThread : undefined;
}

/**
 * Delayed jobs (auto-resolve) wait in a queue of their own: the alert lanes run strictly in
 * order, so a job due in an hour would hold its lane that long.
 */
function timerQueueOf(opts: AlertsRuntimeOptions): JobQueue {
  const logger = opts.logger.child({ component: "alert-timers" });
  const prefix = opts.queuePrefix ? { prefix: opts.queuePrefix } : {};
  if (opts.redisUrl)
    return new BullmqJobQueue({
      redisUrl: opts.redisUrl,
      logger,
      lanes: 1,
      queueName: () => "alert-timers",
      ordered: false,
      ...prefix,
    });
  const file = opts.queueFile === ":memory:" ? ":memory:" : join(opts.dataDir, "alert-timers.db");
  if (file !== ":memory:") mkdirSync(opts.dataDir, { recursive: true });
  return new LocalJobQueue({ file, logger, lanes: 1, ordered: false });
}

/** Wires the alert stores, the queue (BullMQ with REDIS_URL, else the durable local one) and the use-cases. */
export async function createAlertsRuntime(opts: AlertsRuntimeOptions): Promise<AlertsRuntime> {
  const stores = await storesOf(opts);
  const system = opts.redisUrl ? "bullmq" : "local";
  const threaded = inThread(opts);
  let thread: ProcessingThread | undefined;
  const rawQueue = queueOf(opts, (lanes) => thread?.wake(lanes), threaded !== undefined);
  const queue = tracedQueue(rawQueue, opts.tracing, { system, destination: "alerts" });
  const timers = tracedQueue(timerQueueOf(opts), opts.tracing, { system, destination: "alert-timers" });
  const jobs = createAlertJobs(queue, timers);
  const limiterRedis = opts.redisUrl
    ? new Redis(opts.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 })
    : undefined;
  limiterRedis?.on("error", () => undefined); // reconnects by itself; the in-memory insurance covers the gap
  const limiter = createFlexibleLimiter({
    ...(limiterRedis ? { redis: limiterRedis } : {}),
    prefix: opts.queuePrefix ?? "tocsin",
    logger: opts.logger.child({ component: "intake-limit" }),
  });
  const useCases = createAlertsUseCases({
    limiter,
    defaultRateLimitPerMinute: opts.defaultRateLimitPerMinute ?? 0,
    ...(opts.usage ? { usage: opts.usage } : {}),
    ...(opts.autoResolveMinuteMs ? { autoResolveMinuteMs: opts.autoResolveMinuteMs } : {}),
    stores,
    jobs,
    projects: opts.projects,
    integrations: opts.integrations,
    clock: opts.clock,
    ...(opts.notifications ? { notifications: opts.notifications } : {}),
  });
  let housekeeping: NodeJS.Timeout | undefined;
  const purge = () => {
    const now = opts.clock.now();
    stores.requests
      .purge(now, new Date(now.getTime() - JOB_RECORD_TTL_MS))
      .catch((err) => opts.logger.warn({ err }, "purge failed"));
  };
  return {
    useCases,
    stores,
    async start() {
      if (threaded && rawQueue instanceof LocalJobQueue) {
        thread = await startProcessingThread({
          data: { config: threaded.config, batchJobs: THREAD_JOB_BATCH },
          logger: opts.logger,
          onEnded: (jobs) => rawQueue.ended(jobs),
          onMail: threaded.onMail,
        });
      } else {
        const worker = createJobWorker(useCases.jobs, opts.logger.child({ component: "alert-worker" }), {
          takeTurns: opts.sqlite !== undefined,
        });
        await queue.start(worker);
        await timers.start(createTimerRunner(queue));
      }
      housekeeping = setInterval(purge, 10 * 60_000);
      housekeeping.unref();
    },
    async stop() {
      if (housekeeping) clearInterval(housekeeping);
      limiterRedis?.disconnect();
      await thread?.stop();
      await queue.close();
      await timers.close();
      await stores.close();
    },
    async healthy() {
      try {
        await stores.ping();
        return (await queue.healthy()) && (await timers.healthy()) && (thread?.healthy() ?? true);
      } catch {
        return false;
      }
    },
    thread: () => thread,
  };
}
