import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Clock, Logger } from "@tocsin/core";
import type { Tracing } from "@tocsin/telemetry";
import type { Database } from "better-sqlite3";
import type { Db } from "mongodb";
import { createAlertRecipients } from "./clients/alert-recipients.js";
import type { AlertServiceConfig } from "./config.js";
import type { AlertStore } from "./domain/alerts/ports.js";
import { createNotifier, type Notifier } from "./domain/mail/pipeline.js";
import type { MailStore, MailTransport } from "./domain/mail/ports.js";
import type { PagingJobs, ProjectMembers } from "./domain/paging/ports.js";
import type { ProjectAccess } from "./domain/ports.js";
import { createMailMetrics } from "./mail/metrics.js";
import { createOutboxTransport } from "./mail/outbox-transport.js";
import { createSmtpTransport } from "./mail/smtp-transport.js";
import { BullmqJobQueue } from "./queue/bullmq-queue.js";
import { createMailJobRunner, createMailJobs, MAIL_LANES, mailQueueName, mailRetryPolicy } from "./queue/mail-jobs.js";
import type { JobQueue } from "./queue/queue.js";
import { SqliteJobQueue } from "./queue/sqlite/sqlite-job-queue.js";
import { tracedQueue } from "./queue/traced-queue.js";
import { createMongoMailStore } from "./store/mail/mongo-mail-store.js";
import { createSqliteMailStore } from "./store/mail/sqlite-mail-store.js";

export interface MailRuntimeOptions {
  config: Pick<AlertServiceConfig, "mail" | "externalUrl" | "dataDir" | "settingsServiceAddr" | "listenAddr" | "secretKey">;
  /** Exactly one of sqlite / mongo keeps the mail records (the alert database). */
  sqlite?: Database;
  mongo?: Db;
  /** BullMQ with REDIS_URL; else the durable SQLite queue `DATA_DIR/mail-queue.db`. */
  redisUrl?: string;
  queuePrefix?: string;
  clock: Clock;
  logger: Logger;
  /** Spans of the mail queue and of the recipients calls, when tracing is on. */
  tracing?: Tracing;
}

export interface MailRuntime {
  /** For alert processing: each transition that mails. */
  notifier: Notifier;
  /** For paging: the page job of each (alert, trigger, rule, round) that paged someone. */
  pages: Pick<PagingJobs, "enqueuePageMail">;
  /** Starts the mail workers (and the metrics server with METRICS_PORT). */
  start(deps: { alerts: Pick<AlertStore, "getById">; projects: ProjectAccess; members: ProjectMembers }): Promise<void>;
  /** The bound metrics port, once started with METRICS_PORT. */
  metricsPort(): number | undefined;
  healthy(): Promise<boolean>;
  /** Mail jobs were committed to the SQLite mail queue by another thread (the processing thread): wakes these lanes. */
  wake(lanes: number[]): void;
  stop(): Promise<void>;
}

/** BullMQ with `redisUrl`, else the SQLite mail queue (`onCommit`: told of each commit's lanes). */
function queueOf(
  opts: Pick<MailRuntimeOptions, "redisUrl" | "queuePrefix" | "logger"> & {
    config: Pick<AlertServiceConfig, "mail" | "dataDir">;
  },
  onCommit?: (lanes: number[]) => void,
): JobQueue {
  const logger = opts.logger.child({ component: "mail-queue" });
  const retry = mailRetryPolicy(opts.config.mail.retry);
  if (opts.redisUrl)
    return new BullmqJobQueue({
      redisUrl: opts.redisUrl,
      logger,
      lanes: MAIL_LANES,
      queueName: mailQueueName,
      retry,
      ordered: false,
      ...(opts.queuePrefix ? { prefix: opts.queuePrefix } : {}),
    });
  return sqliteMailQueue(opts.config, logger, onCommit);
}

/** The durable SQLite mail queue `DATA_DIR/mail-queue.db` (one per connection: the main thread's, the processing thread's). */
function sqliteMailQueue(
  config: Pick<AlertServiceConfig, "mail" | "dataDir">,
  logger: Logger,
  onCommit?: (lanes: number[]) => void,
): SqliteJobQueue {
  const retry = mailRetryPolicy(config.mail.retry);
  mkdirSync(config.dataDir, { recursive: true });
  return new SqliteJobQueue({
    file: join(config.dataDir, "mail-queue.db"),
    logger,
    ...(onCommit ? { onCommit } : {}),
    lanes: MAIL_LANES,
    ordered: false,
    // A notify job is committed like the alert change it follows (NORMAL: survives a crash or
    // SIGKILL of the process, not a power loss), not with the fsync that a 202 needs.
    synchronous: "NORMAL",
    maxAttempts: retry.maxAttempts,
    backoff: retry.backoff,
    // Finished jobs are remembered for a day, so a late duplicate notify or send is ignored.
    retainMs: 24 * 3_600_000,
  });
}

function transportOf(opts: MailRuntimeOptions): MailTransport {
  const { smtpUrl } = opts.config.mail;
  return smtpUrl ? createSmtpTransport({ url: smtpUrl }) : createOutboxTransport(join(opts.config.dataDir, "outbox"));
}

/**
 * The notifier alone, over its own connections to the alert database and the mail queue (the
 * SQLite one, or BullMQ's with `redisUrl`): what the processing thread needs to claim and enqueue
 * e-mails. The mail workers stay in the main thread (createMailRuntime); `onCommit` tells them of
 * new jobs in the SQLite queue (MailRuntime.wake; BullMQ's workers hear of them from Redis).
 */
export function createLocalNotifier(opts: {
  config: Pick<AlertServiceConfig, "mail" | "dataDir">;
  redisUrl?: string;
  queuePrefix?: string;
  sqlite: Database;
  clock: Clock;
  logger: Logger;
  tracing?: Tracing;
  onCommit: (lanes: number[]) => void;
}): { notifier: Notifier; pages: Pick<PagingJobs, "enqueuePageMail">; close(): Promise<void> } {
  const queue = tracedQueue(queueOf(opts, opts.onCommit), opts.tracing, {
    system: opts.redisUrl ? "bullmq" : "local",
    destination: "mail",
  });
  const store = createSqliteMailStore(opts.sqlite);
  const jobs = createMailJobs(queue);
  return {
    notifier: createNotifier({ store, jobs, clock: opts.clock, storm: opts.config.mail.storm }),
    pages: jobs,
    close: () => queue.close(),
  };
}

/** Wires the mail pipeline: its queue, store, transport, recipients client and metrics. */
export async function createMailRuntime(opts: MailRuntimeOptions): Promise<MailRuntime> {
  const { config, logger } = opts;
  let store: MailStore;
  if (opts.sqlite) store = createSqliteMailStore(opts.sqlite);
  else if (opts.mongo) store = await createMongoMailStore(opts.mongo);
  else throw new Error("mail runtime: a data store (sqlite or mongo) is required");
  const raw = queueOf(opts);
  const queue = tracedQueue(raw, opts.tracing, { system: opts.redisUrl ? "bullmq" : "local", destination: "mail" });
  const jobs = createMailJobs(queue);
  const metrics = createMailMetrics(async () => (await queue.counts()).pending, logger);
  let transport: MailTransport | undefined;
  let recipients: ReturnType<typeof createAlertRecipients> | undefined;
  let boundPort: number | undefined;
  const storm = config.mail.storm;
  return {
    notifier: createNotifier({ store, jobs, clock: opts.clock, storm }),
    pages: jobs,
    async start(deps) {
      transport = transportOf(opts);
      recipients = createAlertRecipients(config.settingsServiceAddr, opts.tracing);
      const runner = createMailJobRunner(
        {
          store,
          alerts: deps.alerts,
          projects: deps.projects,
          members: deps.members,
          recipients,
          jobs,
          transport,
          metrics,
          clock: opts.clock,
          settings: { from: config.mail.from, externalUrl: config.externalUrl, secretKey: config.secretKey },
          storm,
        },
        logger.child({ component: "mail-worker" }),
      );
      await queue.start(runner);
      if (config.mail.metricsPort !== undefined) {
        const host = config.listenAddr.slice(0, config.listenAddr.lastIndexOf(":"));
        boundPort = await metrics.listen(config.mail.metricsPort, host);
      }
    },
    metricsPort: () => boundPort,
    healthy: () => queue.healthy(),
    wake(lanes) {
      if (raw instanceof SqliteJobQueue) raw.wake(lanes);
    },
    async stop() {
      await queue.close();
      transport?.close();
      recipients?.close();
      await metrics.close();
    },
  };
}
