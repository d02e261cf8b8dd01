import type { AlertServiceConfig } from "../config.js";
import type { EndedJob } from "../queue/sqlite/options.js";

/** What the processing thread is started with (workerData: plain, cloneable data). */
export interface ThreadData {
  config: Pick<
    AlertServiceConfig,
    | "processingThread"
    | "dataDir"
    | "tracing"
    | "mail"
    | "channels"
    | "externalUrl"
    | "autoResolveMinuteMs"
    | "settingsServiceAddr"
    | "authServiceAddr"
    | "pagingSecondMs"
  >;
  /** pino level of the thread's logger: the main thread's, so that nothing is built for lines it would drop. */
  logLevel: string;
  /** Jobs per processing batch (one transaction on alert.db). */
  batchJobs: number;
  /** With REDIS_URL: the queues are BullMQ's, under this prefix (else the SQLite queues in `dataDir`). */
  redis?: { url: string; prefix?: string };
}

/** Main thread → processing thread. */
export type ToThread =
  /** Jobs were committed to these lanes of `alert-queue.db` (after each group commit). */
  | { type: "wake"; lanes: number[] }
  /** A project's silences changed (the main thread's API): processing reads them afresh. */
  | { type: "silences"; projectId: number }
  /** Finish the running batches, close every connection, answer `stopped`. */
  | { type: "stop" };

/** Processing thread → main thread. */
export type FromThread =
  | { type: "ready"; threadId: number }
  /** Jobs whose ends were committed (for `waitFor` and `counts`). */
  | { type: "ended"; jobs: EndedJob[] }
  /** Mail jobs were committed to these lanes of `mail-queue.db` (its workers run in the main thread). */
  | { type: "mail"; lanes: number[] }
  /** Delivery jobs were committed to these lanes of `channel-queue.db` (its workers run in the main thread). */
  | { type: "channels"; lanes: number[] }
  /** One JSON log line of the thread's logger, re-logged by the main thread's. */
  | { type: "log"; line: string }
  | { type: "stopped" };
