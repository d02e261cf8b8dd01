import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Clock, Logger } from "@tocsin/core";
import type { Checkpoints } from "@tocsin/store";
import type { Tracing } from "@tocsin/telemetry";
import type { ChannelReactorDeps } from "./channels-runtime.js";
import type { AlertJobs, AlertsStores } from "./domain/alerts/ports.js";
import { createReactions, type Reactions } from "./domain/alerts/reactions.js";
import { type AlertJobHandlers, createJobHandlers } from "./domain/alerts/use-cases.js";
import { channelsReactor } from "./domain/channels/reactor.js";
import type { Notifier } from "./domain/mail/pipeline.js";
import { emailReactor } from "./domain/mail/reactor.js";
import { createPolicyPresence, POLICY_REFRESH_MS } from "./domain/paging/policy-presence.js";
import type { EscalationStore, OncallDirectory, PagingJobs, ProjectMembers } from "./domain/paging/ports.js";
import { pagingReactor } from "./domain/paging/reactor.js";
import { createSilenceIndexCache } from "./domain/silences/active-index.js";
import { createSilenceGate } from "./domain/silences/gate.js";
import type { SilenceStore } from "./domain/silences/ports.js";
import { createAlertJobs, createPagingQueueJobs } from "./queue/alert-jobs.js";
import { BullmqJobQueue } from "./queue/bullmq-queue.js";
import { createJobWorker } from "./queue/lane-worker.js";
import type { JobQueue } from "./queue/queue.js";
import type { EndedJob } from "./queue/sqlite/options.js";
import { SqliteJobQueue } from "./queue/sqlite/sqlite-job-queue.js";
import { createTimerRunner } from "./queue/timer-runner.js";
import { tracedQueue } from "./queue/traced-queue.js";

/**
 * The composition root of alert processing: the one place that wires the job handlers, the
 * `Reactions` dispatcher and its reactors, and the lane and timer workers — for the main thread
 * (MongoDB, BullMQ, ALERT_PROCESSING_THREAD=false, tests) and the processing thread
 * (thread/worker.ts) alike. docs/architecture.md, "Reactions" and "The processing thread".
 */

export interface AlertQueuesOptions {
  /** Where the SQLite queue files are: `alert-queue.db` (the lanes), `alert-timers.db` (delayed jobs). */
  dataDir: string;
  logger: Logger;
  tracing?: Tracing | undefined;
  /** BullMQ with REDIS_URL, else the durable SQLite queues. */
  redisUrl?: string | undefined;
  /** BullMQ's key prefix (tests). */
  queuePrefix?: string | undefined;
  /** Tests: `:memory:` SQLite queues (not durable, one connection: no processing thread). */
  queueFile?: string | undefined;
  /** Local lanes: told of each group commit's lanes (the main thread wakes the processing thread). */
  onCommit?: (lanes: number[]) => void;
  /** Local lanes: told of the jobs whose ends a batch committed (the processing thread tells the main thread). */
  onEnded?: (jobs: EndedJob[]) => void;
  /** Local lanes: who checkpoints the WAL this connection writes (SqliteQueueOptions; default "here"). */
  checkpoints?: Checkpoints;
  /**
   * Local lanes: one loop runs them all, each batch several lanes' due jobs (`mergeLanes`): for
   * the synchronous SQLite stores, which run one batch at a time anyway.
   */
  mergeLanes?: boolean;
}

export interface AlertQueues {
  /** The lanes as built (a SqliteJobQueue can be woken and told of ends), without tracing. */
  lanes: JobQueue;
  /** The alert lanes (8, in order), traced. */
  queue: JobQueue;
  /**
   * Delayed jobs (auto-resolve) wait in a queue of their own, traced: the alert lanes run strictly
   * in order, so a job due in an hour would hold its lane that long.
   */
  timers: JobQueue;
}

/** The alert lanes and the timer queue, on one connection each (every thread opens its own). */
export function openAlertQueues(opts: AlertQueuesOptions): AlertQueues {
  const system = opts.redisUrl ? "bullmq" : "local";
  const queueLogger = opts.logger.child({ component: "alert-queue" });
  const timersLogger = opts.logger.child({ component: "alert-timers" });
  const prefix = opts.queuePrefix ? { prefix: opts.queuePrefix } : {};
  let lanes: JobQueue;
  let timers: JobQueue;
  if (opts.redisUrl) {
    lanes = new BullmqJobQueue({
      redisUrl: opts.redisUrl,
      logger: queueLogger,
      ...prefix,
      ...(opts.onEnded ? { onEnded: opts.onEnded } : {}),
    });
    timers = new BullmqJobQueue({
      redisUrl: opts.redisUrl,
      logger: timersLogger,
      lanes: 1,
      queueName: () => "alert-timers",
      ordered: false,
      // A due page-rule's move waits on settings-service: a batch makes its jobs' calls side by
      // side (createTimerRunner), and 4 batches at once keep pages on time; more, smaller
      // batches (16 were tried) read the same policy once per job in a storm.
      concurrency: 4,
      ...prefix,
    });
  } else {
    const memory = opts.queueFile === ":memory:";
    if (!memory) mkdirSync(opts.dataDir, { recursive: true });
    lanes = new SqliteJobQueue({
      file: opts.queueFile ?? join(opts.dataDir, "alert-queue.db"),
      logger: queueLogger,
      ...(opts.onCommit ? { onCommit: opts.onCommit } : {}),
      ...(opts.onEnded ? { onEnded: opts.onEnded } : {}),
      ...(opts.checkpoints === undefined ? {} : { checkpoints: opts.checkpoints }),
      ...(opts.mergeLanes ? { mergeLanes: true } : {}),
    });
    timers = new SqliteJobQueue({
      file: memory ? ":memory:" : join(opts.dataDir, "alert-timers.db"),
      logger: timersLogger,
      lanes: 1,
      ordered: false,
    });
  }
  return {
    lanes,
    queue: tracedQueue(lanes, opts.tracing, { system, destination: "alerts" }),
    timers: tracedQueue(timers, opts.tracing, { system, destination: "alert-timers" }),
  };
}

export interface ProcessingOptions {
  stores: AlertsStores;
  /** The alert lanes and the timer queue (openAlertQueues). */
  queue: JobQueue;
  timers: JobQueue;
  /** Alert e-mails (section 9): the e-mail reactor claims and enqueues through it; without it no e-mail is sent. */
  notifier?: Notifier | undefined;
  /** Chat and webhooks (section 12): the channels reactor reads destinations and enqueues delivery jobs through it. */
  channels?: ChannelReactorDeps | undefined;
  clock: Clock;
  logger: Logger;
  /** Length of one auto-resolve minute (60 000 ms; shorter in tests). */
  autoResolveMinuteMs?: number | undefined;
  /** Paging (section 11): without it (no settings-service, unit tests) nothing is paged. */
  paging?: PagingOptions | undefined;
  /** The synchronous SQLite stores: batches in flight at once across the lanes, each after a turn of the event loop (see createJobWorker); 0: no turns. */
  turns: number;
  /** Jobs per batch (64; THREAD_JOB_BATCH in the processing thread). */
  batchJobs?: number;
  /** The project's silences: the gate of Reactions (issue 24); without it nothing is held. */
  silences?: SilenceStore | undefined;
}

/**
 * How long a project's index of silences is used before it is read again: the bound on how long
 * a silence written elsewhere (the main thread's API, another replica) goes unseen by processing.
 */
const SILENCE_INDEX_MAX_AGE_MS = 1000;

function silenceGate(opts: ProcessingOptions, jobs: AlertJobs) {
  const store = opts.silences;
  if (!store) return undefined;
  const index = createSilenceIndexCache({
    clock: opts.clock,
    maxAgeMs: SILENCE_INDEX_MAX_AGE_MS,
    load: (projectId, now) => store.list(projectId, { endsAfter: now }),
  });
  const gate = createSilenceGate({
    index,
    alertOf: (alertId) => opts.stores.alerts.getById(alertId),
    mark: (alertId, ids, at) => store.markSilenced(alertId, ids, at),
    schedule: (timers) => jobs.scheduleUnsilence(timers),
  });
  return { gate, index };
}

/** What paging needs beside the alert stores and queues: its store, settings- and auth-service, the mail queue. */
export interface PagingOptions {
  escalations: EscalationStore;
  directory: OncallDirectory;
  members: ProjectMembers;
  mail: Pick<PagingJobs, "enqueuePageMail">;
  /** Length of one policy second (1000 ms; PAGING_SECOND_MS shortens it in tests). */
  secondMs?: number | undefined;
}

export interface Processing {
  /** The job handlers (tests run them directly). */
  handlers: AlertJobHandlers;
  /** The dispatcher every path that changes an alert emits its event into. */
  reactions: Reactions;
  /** A project's silences changed in this process: the gate reads them afresh (other replicas: within SILENCE_INDEX_MAX_AGE_MS). */
  silencesChanged(projectId: number): void;
  /** Starts the lane workers and the timer runner (a due timer moves into its alert's lane). */
  start(): Promise<void>;
  /** Stops what `start` runs beside the queues (the policy refresh); the owner closes the queues. */
  stop(): void;
}

/**
 * Alert processing over `queue` and `timers`: `Reactions` built once from its reactors (e-mail
 * today; paging, channels and the silences gate plug in here), the job handlers (processing,
 * status changes, auto-resolve, incidents), the workers. Nothing runs before `start`; closing the
 * queues stops it.
 */
export function createProcessing(opts: ProcessingOptions): Processing {
  const jobs = createAlertJobs(opts.queue, opts.timers);
  const silences = silenceGate(opts, jobs);
  const pagingJobs: PagingJobs | undefined = opts.paging && {
    ...createPagingQueueJobs(opts.timers),
    enqueuePageMail: (job) => (opts.paging as PagingOptions).mail.enqueuePageMail(job),
  };
  // The timer runner's policy reads tell paging's claim which projects have none (no page-start then).
  const presence = createPolicyPresence(opts.clock);
  const paging = opts.paging && { ...opts.paging, directory: presence.observe(opts.paging.directory) };
  const reactors = [
    ...(opts.notifier ? [emailReactor(opts.notifier)] : []),
    ...(opts.channels ? [channelsReactor(opts.channels)] : []),
    ...(pagingJobs ? [pagingReactor(opts.stores.alerts, pagingJobs, presence)] : []),
  ];
  const reactions = createReactions(reactors, (projectId) => opts.stores.incidents.settings(projectId), silences?.gate);
  const handlers = createJobHandlers(
    {
      stores: opts.stores,
      jobs,
      clock: opts.clock,
      reactions,
      ...(opts.autoResolveMinuteMs ? { autoResolveMinuteMs: opts.autoResolveMinuteMs } : {}),
    },
    opts.paging && pagingJobs
      ? {
          stores: opts.stores,
          escalations: opts.paging.escalations,
          jobs: pagingJobs,
          reactions,
          clock: opts.clock,
          secondMs: opts.paging.secondMs ?? 1000,
        }
      : undefined,
  );
  let refreshing: ReturnType<typeof setInterval> | undefined;
  return {
    handlers,
    reactions,
    silencesChanged: (projectId) => silences?.index.invalidate(projectId),
    async start() {
      const worker = createJobWorker(handlers, opts.logger.child({ component: "alert-worker" }), {
        turns: opts.turns,
        ...(opts.batchJobs ? { maxJobs: opts.batchJobs } : {}),
      });
      await opts.queue.start(worker);
      await opts.timers.start(createTimerRunner(opts.queue, paging));
      // Keeps busy projects' "no policy" known between the timer runner's reads (idle: no reads).
      if (opts.paging) {
        const directory = opts.paging.directory;
        refreshing = setInterval(() => void presence.refresh(directory), POLICY_REFRESH_MS);
        refreshing.unref();
      }
    },
    stop() {
      if (refreshing) clearInterval(refreshing);
    },
  };
}
