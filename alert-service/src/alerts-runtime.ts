import { type Clock, type Logger, systemClock } from "@tocsin/core";
import type { Tracing } from "@tocsin/telemetry";
import type Database from "better-sqlite3";
import { Redis } from "ioredis";
import type { Db } from "mongodb";
import type { ChannelReactorDeps } from "./channels-runtime.js";
import type { AlertServiceConfig } from "./config.js";
import { createBacklogGate } from "./domain/alerts/backlog-gate.js";
import type { AlertsStores } from "./domain/alerts/ports.js";
import { type AlertsUseCases, createAlertsUseCases } from "./domain/alerts/use-cases.js";
import type { Notifier } from "./domain/mail/pipeline.js";
import type { EscalationStore } from "./domain/paging/ports.js";
import type { IntegrationDirectory, ProjectAccess } from "./domain/ports.js";
import { unsilenceHeldAlerts } from "./domain/silences/ended.js";
import type { Silence } from "./domain/silences/model.js";
import type { SilenceStore } from "./domain/silences/ports.js";
import { createFlexibleLimiter } from "./limits/flexible-limiter.js";
import { createProcessing, openAlertQueues, type PagingOptions, type Processing } from "./processing-runtime.js";
import { createAlertJobs } from "./queue/alert-jobs.js";
import type { BullmqJobQueue } from "./queue/bullmq-queue.js";
import { BULLMQ_TURNS, THREAD_BULLMQ_BATCH, THREAD_JOB_BATCH } from "./queue/lane-worker.js";
import type { SqliteJobQueue } from "./queue/sqlite/sqlite-job-queue.js";
import { ferretDbIdReads } from "./store/alerts/mongo-ferretdb-id-reads.js";
import { createMongoAlertsStores } from "./store/alerts/mongo-stores.js";
import { createSqliteAlertsStores } from "./store/alerts/sqlite-stores.js";
import { createMongoEscalationStore } from "./store/paging/mongo-escalation-store.js";
import { createSqliteEscalationStore } from "./store/paging/sqlite-escalation-store.js";
import { createMongoSilenceStore } from "./store/silences/mongo-silence-store.js";
import { createSqliteSilenceStore } from "./store/silences/sqlite-silence-store.js";
import { type ProcessingThread, startProcessingThread } from "./thread/host.js";
import type { ThreadData } from "./thread/messages.js";

/** The alerts half of alert-service without gRPC: stores, queue, workers, use-cases (tests boot it alone). */
export interface AlertsRuntimeOptions {
  /** Exactly one of sqlite / mongo holds the alert data. */
  sqlite?: Database.Database;
  mongo?: Db;
  /** Where the durable SQLite queue keeps `alert-queue.db` (used when redisUrl is unset). */
  dataDir: string;
  redisUrl?: string;
  projects: ProjectAccess;
  integrations: IntegrationDirectory;
  clock: Clock;
  logger: Logger;
  /** Alert e-mails (section 9): the e-mail reactor's claims and jobs; without it no e-mail is sent. */
  notifier?: Notifier;
  /** Chat and webhooks (section 12): the channels reactor's destinations and delivery jobs; without it none are sent. */
  channels?: ChannelReactorDeps;
  /** Paging (section 11): settings- and auth-service, the mail queue's page jobs, SECRET_KEY; without it nothing is paged. */
  paging?: Omit<PagingOptions, "escalations"> & { secretKey?: string | undefined };
  /** Budget of an integration that sets none (WEBHOOK_RATE_LIMIT_PER_MINUTE); unset or 0 = unlimited. */
  defaultRateLimitPerMinute?: number;
  /** Length of one auto-resolve minute (60 000 ms; shorter in tests). */
  autoResolveMinuteMs?: number;
  /** The backlog bound (INGEST_BACKLOG_LIMIT, INGEST_BACKLOG_WAIT_MS); unset: no request is held. */
  backlog?: { limit: number; maxWaitMs: number };
  /** token_last_used_at of integrations (told of every accepted request). */
  usage?: { used(projectId: number, integrationId: number): void };
  /** Spans of the queue (producer at enqueue, consumer per run), when tracing is on. */
  tracing?: Tracing;
  /** Tests: override the SQLite queue file (e.g. `:memory:`) or the BullMQ key prefix. */
  queueFile?: string;
  queuePrefix?: string;
  /**
   * What the processing thread is started with (see thread/host.ts) and `onMail`, told of the mail
   * jobs it committed (MailRuntime.wake). Whether it runs is configuration alone: see `runsInThread`.
   * Unset: processing runs in this thread.
   */
  processingThread?: { config: ThreadData["config"]; onMail(lanes: number[]): void; onChannels?(lanes: number[]): void };
}

export interface AlertsRuntime {
  useCases: AlertsUseCases;
  /** The stores, for housekeeping and tests. */
  stores: AlertsStores;
  /** Processing, when it runs in this thread (undefined when the processing thread runs it). */
  processing: Processing | undefined;
  /** Starts the queue workers (or the processing thread) and the housekeeping timer. */
  start(): Promise<void>;
  /** Stops the workers (running jobs finish) and closes the queue. */
  stop(): Promise<void>;
  healthy(): Promise<boolean>;
  /** The processing thread, once started, when the lanes run in one (see `runsInThread`). */
  thread(): ProcessingThread | undefined;
  /** A silence expired before its end: the alerts it held look again now (domain/silences/ended.ts). */
  silenceEnded(silence: Silence, at: Date): Promise<void>;
  /** A project's silences changed: processing (here or in its thread) reads them afresh. */
  silencesChanged(projectId: number): void;
}

/** How long processed-job records (and the ops of idempotent re-runs) are kept. */
const JOB_RECORD_TTL_MS = 48 * 3600_000;

async function escalationsOf(opts: AlertsRuntimeOptions): Promise<EscalationStore> {
  if (opts.sqlite) return createSqliteEscalationStore(opts.sqlite);
  if (opts.mongo) return createMongoEscalationStore(opts.mongo);
  throw new Error("alerts runtime: a data store (sqlite or mongo) is required");
}

/** FerretDB 1.x reading alerts by `_id` with a scan: said once at start, with the remedy. */
async function warnIfIdReadsScan(db: Db, logger: Logger): Promise<void> {
  try {
    if ((await ferretDbIdReads(db)) !== "scan") return;
    logger.warn(
      "FerretDB reads alerts by _id with a scan of the collection, so repeats and resolves slow down as alerts accumulate: run scripts/ferretdb-sqlite-id-indexes.mjs on its database file, then restart FerretDB (docs/operations.md)",
    );
  } catch (err) {
    logger.warn({ err }, "could not ask the database how it reads alerts by _id");
  }
}

async function storesOf(opts: AlertsRuntimeOptions): Promise<AlertsStores> {
  if (opts.sqlite && opts.mongo) throw new Error("alerts runtime: give sqlite or mongo, not both");
  if (opts.sqlite) return createSqliteAlertsStores(opts.sqlite);
  if (opts.mongo) return createMongoAlertsStores(opts.mongo);
  throw new Error("alerts runtime: a data store (sqlite or mongo) is required");
}

/** The silences processing's gate reads (issue 24), in the alerts' database. */
async function silenceStoreOf(opts: AlertsRuntimeOptions): Promise<SilenceStore | undefined> {
  if (opts.sqlite) return createSqliteSilenceStore(opts.sqlite);
  if (opts.mongo) return createMongoSilenceStore(opts.mongo);
  return undefined;
}

/**
 * Where processing runs, by configuration alone: in the processing thread when
 * ALERT_PROCESSING_THREAD is on and the alerts are in SQLite, with the local queue on a file or
 * BullMQ (the thread opens its own connections to them); else in this thread.
 */
export function runsInThread(opts: {
  processingThread?: { config: Pick<AlertServiceConfig, "processingThread"> } | undefined;
  sqlite?: unknown;
  redisUrl?: string | undefined;
  queueFile?: string | undefined;
}): boolean {
  return !!opts.processingThread?.config.processingThread && !!opts.sqlite && opts.queueFile !== ":memory:";
}

/** Wires the alert stores, the queue (BullMQ with REDIS_URL, else the durable local one), processing and the use-cases. */
export async function createAlertsRuntime(opts: AlertsRuntimeOptions): Promise<AlertsRuntime> {
  const threaded = runsInThread(opts) ? opts.processingThread : undefined;
  if (threaded && opts.clock !== systemClock)
    throw new Error("the processing thread runs on the system clock: with another clock, set ALERT_PROCESSING_THREAD=false");
  const stores = await storesOf(opts);
  if (opts.mongo) await warnIfIdReadsScan(opts.mongo, opts.logger);
  const escalations = await escalationsOf(opts);
  const silences = await silenceStoreOf(opts);
  let thread: ProcessingThread | undefined;
  const { lanes, queue, timers } = openAlertQueues({
    dataDir: opts.dataDir,
    logger: opts.logger,
    tracing: opts.tracing,
    redisUrl: opts.redisUrl,
    queuePrefix: opts.queuePrefix,
    queueFile: opts.queueFile,
    onCommit: (committed) => thread?.wake(committed),
    // With the processing thread, its connection checkpoints the WAL (its job-end commits), not the accepting one.
    checkpoints: threaded ? "never" : "here",
    // The SQLite stores run one batch at a time (turns 1): one loop takes the lanes' jobs together.
    mergeLanes: opts.sqlite !== undefined,
  });
  const processing = threaded
    ? undefined
    : createProcessing({
        stores,
        queue,
        timers,
        notifier: opts.notifier,
        channels: opts.channels,
        paging: opts.paging && {
          escalations,
          directory: opts.paging.directory,
          members: opts.paging.members,
          mail: opts.paging.mail,
          secondMs: opts.paging.secondMs,
        },
        clock: opts.clock,
        logger: opts.logger,
        autoResolveMinuteMs: opts.autoResolveMinuteMs,
        // With BullMQ a batch also waits for Redis (its follow-up jobs): several lanes' batches overlap those waits.
        turns: opts.sqlite === undefined ? 0 : opts.redisUrl ? BULLMQ_TURNS : 1,
        silences,
      });
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
  const backlog = opts.backlog
    ? createBacklogGate({ ...opts.backlog, pending: async () => (await jobs.stats()).pending })
    : undefined;
  const useCases = createAlertsUseCases({
    ...(backlog ? { backlog } : {}),
    limiter,
    defaultRateLimitPerMinute: opts.defaultRateLimitPerMinute ?? 0,
    ...(opts.usage ? { usage: opts.usage } : {}),
    stores,
    jobs,
    projects: opts.projects,
    integrations: opts.integrations,
    clock: opts.clock,
    ...(opts.paging
      ? {
          paging: {
            escalations,
            members: opts.paging.members,
            secretKey: opts.paging.secretKey,
            secondMs: opts.paging.secondMs ?? 1000,
          },
        }
      : {}),
    ...(silences ? { silencedBy: (alertIds: number[]) => silences.silencedBy(alertIds) } : {}),
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
    processing,
    async start() {
      if (threaded) {
        const redis = opts.redisUrl
          ? { url: opts.redisUrl, ...(opts.queuePrefix ? { prefix: opts.queuePrefix } : {}) }
          : undefined;
        thread = await startProcessingThread({
          data: {
            config: threaded.config,
            batchJobs: redis ? THREAD_BULLMQ_BATCH : THREAD_JOB_BATCH,
            ...(redis ? { redis } : {}),
          },
          logger: opts.logger,
          // Counted here (and, with the SQLite queue, answered here; BullMQ's waiters hear through Redis).
          onEnded: (jobs) => (lanes as SqliteJobQueue | BullmqJobQueue).ended(jobs),
          onMail: threaded.onMail,
          ...(threaded.onChannels ? { onChannels: threaded.onChannels } : {}),
        });
      } else await processing?.start();
      housekeeping = setInterval(purge, 10 * 60_000);
      housekeeping.unref();
    },
    async stop() {
      if (housekeeping) clearInterval(housekeeping);
      backlog?.close();
      limiterRedis?.disconnect();
      await thread?.stop();
      processing?.stop();
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
    silencesChanged(projectId) {
      processing?.silencesChanged(projectId);
      thread?.silencesChanged(projectId);
    },
    async silenceEnded(silence, at) {
      if (!silences) return;
      const deps = {
        store: silences,
        alertOf: (id: number) => stores.alerts.getById(id),
        scheduleUnsilence: jobs.scheduleUnsilence,
      };
      await unsilenceHeldAlerts(deps, silence, at);
    },
  };
}
