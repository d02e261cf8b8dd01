import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Clock, type Logger, SecretBox } from "@tocsin/core";
import type { Tracing } from "@tocsin/telemetry";
import type { Database } from "better-sqlite3";
import { Redis } from "ioredis";
import type { Db } from "mongodb";
import { createHttpSender } from "./channels/http-sender.js";
import { createLocalSendSlots } from "./channels/local-send-slots.js";
import { createRedisSendSlots } from "./channels/redis-send-slots.js";
import { standardWebhooksSign } from "./channels/signer.js";
import type { AlertServiceConfig } from "./config.js";
import type { AlertStore, IncidentStore } from "./domain/alerts/ports.js";
import { createDeliveryLogUseCases, DELIVERY_LOG_MS, type DeliveryLogUseCases } from "./domain/channels/deliveries.js";
import { createDelivery } from "./domain/channels/delivery.js";
import { createDestinations, type Destinations } from "./domain/channels/destinations.js";
import type { DeliveryJobs, DeliveryLog, DestinationStore, Sender } from "./domain/channels/ports.js";
import type { ProjectAccess } from "./domain/ports.js";
import { BullmqJobQueue } from "./queue/bullmq-queue.js";
import {
  CHANNEL_LANES,
  channelQueueName,
  channelRetryPolicy,
  createDeliveryJobRunner,
  createDeliveryJobs,
} from "./queue/channel-jobs.js";
import type { JobQueue } from "./queue/queue.js";
import { SqliteJobQueue } from "./queue/sqlite/sqlite-job-queue.js";
import { tracedQueue } from "./queue/traced-queue.js";
import { createMongoDeliveryLog } from "./store/channels/mongo-delivery-log.js";
import { createMongoDestinationStore } from "./store/channels/mongo-destination-store.js";
import { sealedDestinationStore, sealPlainSecrets } from "./store/channels/sealed-destination-store.js";
import { createSqliteDeliveryLog } from "./store/channels/sqlite-delivery-log.js";
import { createSqliteDestinationStore } from "./store/channels/sqlite-destination-store.js";

type ChannelsConfig = Pick<AlertServiceConfig, "channels" | "externalUrl" | "dataDir">;

export interface ChannelsRuntimeOptions {
  /** `secretKey` seals the destinations' credentials at rest (unset: they stay plain). */
  config: ChannelsConfig & Partial<Pick<AlertServiceConfig, "secretKey">>;
  /** Exactly one of sqlite / mongo keeps the destinations and the delivery log (the alert database). */
  sqlite?: Database;
  mongo?: Db;
  /** BullMQ with REDIS_URL; else the durable SQLite queue `DATA_DIR/channel-queue.db`. */
  redisUrl?: string;
  queuePrefix?: string;
  projects: ProjectAccess;
  clock: Clock;
  logger: Logger;
  tracing?: Tracing;
  /** Tests: another way to post (e.g. one that records). Default: node:http through the address filter. */
  sender?: Sender;
}

/** What the channels reactor needs in processing (the main thread's, or the processing thread's own). */
export interface ChannelReactorDeps {
  destinations: Pick<DestinationStore, "list">;
  jobs: DeliveryJobs;
}

export interface ChannelsRuntime {
  /** The configuration use-cases (ChannelService). */
  destinations: Destinations;
  /** The delivery log, resend and test (ChannelService). */
  deliveries: DeliveryLogUseCases;
  /** For the channels reactor of processing in this thread. */
  reactor: ChannelReactorDeps;
  /** Starts the delivery workers. */
  start(deps: { alerts: Pick<AlertStore, "getById">; incidents: Pick<IncidentStore, "getByAlert"> }): Promise<void>;
  healthy(): Promise<boolean>;
  /** Delivery jobs were committed to the SQLite channel queue by the processing thread: wakes these lanes. */
  wake(lanes: number[]): void;
  stop(): Promise<void>;
}

/** The durable SQLite channel queue `DATA_DIR/channel-queue.db` (one per connection: the main thread's, the processing thread's). */
function sqliteChannelQueue(config: ChannelsConfig, logger: Logger, onCommit?: (lanes: number[]) => void): SqliteJobQueue {
  const retry = channelRetryPolicy(config.channels.retry);
  mkdirSync(config.dataDir, { recursive: true });
  return new SqliteJobQueue({
    file: join(config.dataDir, "channel-queue.db"),
    logger,
    ...(onCommit ? { onCommit } : {}),
    lanes: CHANNEL_LANES,
    // A destination's lane runs its messages in order (PRODUCT.md section 12: per alert, in order).
    ordered: true,
    // Committed like the alert change it follows (survives a crash or SIGKILL of the process).
    synchronous: "NORMAL",
    maxAttempts: retry.maxAttempts,
    backoff: retry.backoff,
    // Finished jobs are remembered for the delivery log's life, so a late duplicate is ignored.
    retainMs: DELIVERY_LOG_MS,
  });
}

/** BullMQ with `redisUrl`, else the SQLite channel queue (`onCommit`: told of each commit's lanes). */
function queueOf(
  opts: Pick<ChannelsRuntimeOptions, "config" | "redisUrl" | "queuePrefix" | "logger">,
  onCommit?: (lanes: number[]) => void,
): JobQueue {
  const logger = opts.logger.child({ component: "channel-queue" });
  if (!opts.redisUrl) return sqliteChannelQueue(opts.config, logger, onCommit);
  return new BullmqJobQueue({
    redisUrl: opts.redisUrl,
    logger,
    lanes: CHANNEL_LANES,
    queueName: channelQueueName,
    retry: channelRetryPolicy(opts.config.channels.retry),
    ordered: true,
    // A delivery may wait up to an hour for its next attempt: shutdown does not wait for it.
    releaseRetryingOnClose: true,
    ...(opts.queuePrefix ? { prefix: opts.queuePrefix } : {}),
  });
}

/**
 * What the processing thread needs for the channels reactor, over its own connections to the
 * alert database and the channel queue (the SQLite one, or BullMQ's with `redisUrl`); `onCommit`
 * tells the main thread's workers of new jobs in the SQLite queue. The reactor reads which
 * destinations want an event, never their credentials: its store leaves them sealed.
 */
export function createLocalChannelReactorDeps(opts: {
  config: ChannelsConfig;
  redisUrl?: string;
  queuePrefix?: string;
  sqlite: Database;
  logger: Logger;
  tracing?: Tracing;
  onCommit: (lanes: number[]) => void;
}): ChannelReactorDeps & { close(): Promise<void> } {
  const queue = tracedQueue(queueOf(opts, opts.onCommit), opts.tracing, {
    system: opts.redisUrl ? "bullmq" : "local",
    destination: "channels",
  });
  return { destinations: createSqliteDestinationStore(opts.sqlite), jobs: createDeliveryJobs(queue), close: () => queue.close() };
}

/**
 * The destinations with their credentials sealed by SECRET_KEY (docs/channels.md, "Secrets at
 * rest"); those stored in plain are sealed now. A key that cannot open them is logged, not fatal:
 * intake goes on, and deliveries to those destinations fail with the same message.
 */
async function secretsAtRest(raw: DestinationStore, secretKey: string | undefined, logger: Logger) {
  if (!secretKey) {
    logger.warn("SECRET_KEY is not set: hook tokens, signing secrets and chat webhook URLs are stored unencrypted");
    return sealedDestinationStore(raw, undefined);
  }
  const box = new SecretBox(secretKey);
  await sealPlainSecrets(raw, box, logger).catch((err: unknown) =>
    logger.error({ err }, "could not seal the destinations' secrets stored in plain"),
  );
  return sealedDestinationStore(raw, box);
}

/**
 * Each destination's send slots: in Redis with BullMQ (every replica's sends spaced), else in
 * memory; no Redis connection when pacing is off (`CHANNEL_MIN_INTERVAL_MS=0`: no slot is asked for).
 */
function sendSlotsOf(opts: Pick<ChannelsRuntimeOptions, "config" | "redisUrl" | "queuePrefix" | "logger">) {
  if (!opts.redisUrl || opts.config.channels.minIntervalMs <= 0) return { slots: createLocalSendSlots(), close: () => undefined };
  const redis = new Redis(opts.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on("error", () => undefined); // reconnects by itself; the local slots cover the gap
  const logger = opts.logger.child({ component: "channel-slots" });
  return { slots: createRedisSendSlots(redis, opts.queuePrefix ?? "tocsin", logger), close: () => redis.disconnect() };
}

/** Wires the outbound channels (docs/channels.md): destinations, the delivery log, the channel queue and its workers. */
export async function createChannelsRuntime(opts: ChannelsRuntimeOptions): Promise<ChannelsRuntime> {
  const { config, logger, clock } = opts;
  let stored: DestinationStore;
  let log: DeliveryLog;
  if (opts.sqlite) {
    stored = createSqliteDestinationStore(opts.sqlite);
    log = createSqliteDeliveryLog(opts.sqlite);
  } else if (opts.mongo) {
    stored = await createMongoDestinationStore(opts.mongo);
    log = await createMongoDeliveryLog(opts.mongo);
  } else throw new Error("channels runtime: a data store (sqlite or mongo) is required");
  const store = await secretsAtRest(stored, config.secretKey, logger);
  const raw = queueOf(opts);
  const queue = tracedQueue(raw, opts.tracing, { system: opts.redisUrl ? "bullmq" : "local", destination: "channels" });
  const jobs = createDeliveryJobs(queue);
  const destinations = createDestinations({
    store,
    projects: opts.projects,
    clock,
    allowLocalNetwork: config.channels.allowLocalNetwork,
  });
  const sender =
    opts.sender ??
    createHttpSender({ allowLocalNetwork: config.channels.allowLocalNetwork, timeoutMs: config.channels.timeoutMs });
  const settings = {
    externalUrl: config.externalUrl,
    storm: config.channels.storm,
    minIntervalMs: config.channels.minIntervalMs,
    retryForMs: config.channels.retry.forMs,
  };
  const slots = sendSlotsOf(opts);
  let started: { alerts: Pick<AlertStore, "getById">; incidents: Pick<IncidentStore, "getByAlert"> } | undefined;
  const delivery = createDelivery({
    destinations: store,
    log,
    alerts: { getById: (id) => (started ? started.alerts.getById(id) : Promise.resolve(undefined)) },
    incidents: { getByAlert: (id) => (started ? started.incidents.getByAlert(id) : Promise.resolve(undefined)) },
    projects: opts.projects,
    sender,
    sign: standardWebhooksSign,
    slots: slots.slots,
    jobs,
    clock,
    settings,
  });
  let housekeeping: NodeJS.Timeout | undefined;
  return {
    destinations,
    deliveries: createDeliveryLogUseCases({ destinations, log, jobs, delivery, clock }),
    reactor: { destinations: store, jobs },
    async start(deps) {
      started = deps;
      await queue.start(createDeliveryJobRunner(delivery, logger.child({ component: "channel-worker" })));
      const purge = () =>
        log
          .purge(new Date(clock.now().getTime() - DELIVERY_LOG_MS))
          .catch((err) => logger.warn({ err }, "delivery log purge failed"));
      housekeeping = setInterval(purge, 60 * 60_000);
      housekeeping.unref();
    },
    healthy: () => queue.healthy(),
    wake(lanes) {
      if (raw instanceof SqliteJobQueue) raw.wake(lanes);
    },
    async stop() {
      if (housekeeping) clearInterval(housekeeping);
      await queue.close();
      slots.close();
    },
  };
}
