import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Clock, Logger } from "@tocsin/core";
import type { Database } from "better-sqlite3";
import type { Db } from "mongodb";
import { type AlertsModule, createAlertsModule } from "./domain/alerts/module.js";
import type { AlertsStores } from "./domain/alerts/ports.js";
import type { IntegrationDirectory, ProjectAccess } from "./domain/types.js";
import { BullmqJobQueue } from "./queue/bullmq-queue.js";
import { createAlertJobs, createJobRunner } from "./queue/jobs.js";
import { LocalJobQueue } from "./queue/local-queue.js";
import type { JobQueue } from "./queue/queue.js";
import { createMongoAlertsStores } from "./store/alerts/mongo-stores.js";
import { createSqliteAlertsStores } from "./store/alerts/sqlite-stores.js";

export interface AlertsRuntimeOptions {
  /** Exactly one of sqlite / mongo holds the alert data. */
  sqlite?: Database;
  mongo?: Db;
  /** Where the durable local queue keeps `alert-queue.db` (used when redisUrl is unset). */
  dataDir: string;
  redisUrl?: string;
  projects: ProjectAccess;
  integrations: IntegrationDirectory;
  clock: Clock;
  logger: Logger;
  /** Tests: override the local queue file (e.g. `:memory:`) or the BullMQ key prefix. */
  queueFile?: string;
  queuePrefix?: string;
}

export interface AlertsRuntime {
  module: AlertsModule;
  /** The stores, for housekeeping and tests. */
  stores: AlertsStores;
  /** Starts the queue workers and the housekeeping timer. */
  start(): Promise<void>;
  /** Stops the workers (running jobs finish) and closes the queue. */
  stop(): Promise<void>;
  healthy(): Promise<boolean>;
}

/** How long processed-job records (and the ops of idempotent re-runs) are kept. */
const JOB_RECORD_TTL_MS = 48 * 3600_000;

async function storesOf(opts: AlertsRuntimeOptions): Promise<AlertsStores> {
  if (opts.sqlite && opts.mongo) throw new Error("alerts runtime: give sqlite or mongo, not both");
  if (opts.sqlite) return createSqliteAlertsStores(opts.sqlite);
  if (opts.mongo) return createMongoAlertsStores(opts.mongo);
  throw new Error("alerts runtime: a data store (sqlite or mongo) is required");
}

function queueOf(opts: AlertsRuntimeOptions): JobQueue {
  const logger = opts.logger.child({ component: "alert-queue" });
  if (opts.redisUrl)
    return new BullmqJobQueue({ redisUrl: opts.redisUrl, logger, ...(opts.queuePrefix ? { prefix: opts.queuePrefix } : {}) });
  const file = opts.queueFile ?? join(opts.dataDir, "alert-queue.db");
  if (file !== ":memory:") mkdirSync(opts.dataDir, { recursive: true });
  return new LocalJobQueue({ file, logger });
}

/** Wires the alert stores, the queue (BullMQ with REDIS_URL, else the durable local one) and the use-cases. */
export async function createAlertsRuntime(opts: AlertsRuntimeOptions): Promise<AlertsRuntime> {
  const stores = await storesOf(opts);
  const queue = queueOf(opts);
  const jobs = createAlertJobs(queue);
  const module = createAlertsModule({
    stores,
    jobs,
    projects: opts.projects,
    integrations: opts.integrations,
    clock: opts.clock,
  });
  let housekeeping: NodeJS.Timeout | undefined;
  const purge = () => {
    const now = opts.clock.now();
    stores.requests
      .purge(now, new Date(now.getTime() - JOB_RECORD_TTL_MS))
      .catch((err) => opts.logger.warn({ err }, "purge failed"));
  };
  return {
    module,
    stores,
    async start() {
      await queue.start(createJobRunner(module.jobs, opts.logger.child({ component: "alert-worker" })));
      housekeeping = setInterval(purge, 10 * 60_000);
      housekeeping.unref();
    },
    async stop() {
      if (housekeeping) clearInterval(housekeeping);
      await queue.close();
      await stores.close();
    },
    async healthy() {
      try {
        await stores.ping();
        return await queue.healthy();
      } catch {
        return false;
      }
    },
  };
}
