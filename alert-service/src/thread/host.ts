import { Worker } from "node:worker_threads";
import type { Logger } from "@tocsin/core";
import type { EndedJob } from "../queue/sqlite/options.js";
import { threadEntry } from "./entry.js";
import type { FromThread, ThreadData, ToThread } from "./messages.js";

export interface ProcessingThreadOptions {
  data: Omit<ThreadData, "logLevel">;
  logger: Logger;
  /** Jobs the thread ended (their ends are committed). */
  onEnded(jobs: EndedJob[]): void;
  /** Mail jobs the thread committed, by lane. */
  onMail(lanes: number[]): void;
  /** Delivery jobs the thread committed to the channel queue, by lane. */
  onChannels?(lanes: number[]): void;
}

/** The alert lanes running in a worker thread, seen from the main thread. */
export interface ProcessingThread {
  /** Jobs were committed to these lanes: the thread runs them now rather than at its next poll. */
  wake(lanes: number[]): void;
  /** A project's silences changed: the thread's silence gate reads them afresh. */
  silencesChanged(projectId: number): void;
  /** false from a crash of the thread until its restart is ready. */
  healthy(): boolean;
  /** The running thread's id (not the main thread's, 0), undefined while it restarts. */
  threadId(): number | undefined;
  /** Ends the thread abruptly, as a crash would: logged and restarted like one (tests). */
  kill(): Promise<void>;
  /** Lets the running batches finish, closes the thread's connections, ends it. */
  stop(): Promise<void>;
}

const RESTART_MIN_MS = 250;
const RESTART_MAX_MS = 30_000;
/** How long `stop` waits for running batches before it ends the thread anyway (they re-run on the next start). */
const STOP_BOUND_MS = 10_000;

/** Re-logs a JSON line of the thread's logger through the main thread's (its level, redaction, destination). */
function relay(logger: Logger, line: string): void {
  const { level, msg, time: _time, pid: _pid, hostname: _host, service: _service, name: _name, ...fields } = JSON.parse(line);
  const label = (logger.levels.labels[level] ?? "info") as "info";
  logger[label](fields, msg);
}

/**
 * Starts the processing thread and resolves once it runs its lanes. A thread that dies (an
 * uncaught error, `kill`) is logged at error, health answers false, and a new thread starts
 * after a backoff (250 ms doubling to 30 s, reset by a thread that got ready): the jobs it was
 * running are still pending in `alert-queue.db` and re-run, idempotently.
 */
export function startProcessingThread(opts: ProcessingThreadOptions): Promise<ProcessingThread> {
  const { logger } = opts;
  let current: Worker | undefined;
  let readyId: number | undefined;
  let stopping = false;
  let backoffMs = RESTART_MIN_MS;
  let restart: NodeJS.Timeout | undefined;
  let firstReady: { resolve(): void; reject(err: unknown): void } | undefined;

  const spawn = () => {
    const { filename, ...how } = threadEntry("worker");
    const data: ThreadData = { ...opts.data, logLevel: logger.level };
    const worker = new Worker(filename, { ...how, workerData: data });
    current = worker;
    worker.on("message", (message: FromThread) => {
      if (message.type === "ended") opts.onEnded(message.jobs);
      else if (message.type === "mail") opts.onMail(message.lanes);
      else if (message.type === "channels") opts.onChannels?.(message.lanes);
      else if (message.type === "log") relay(logger, message.line);
      else if (message.type === "ready") {
        readyId = message.threadId;
        backoffMs = RESTART_MIN_MS;
        firstReady?.resolve();
        firstReady = undefined;
      }
    });
    let failure: unknown;
    worker.on("error", (err) => {
      failure = err;
      logger.error({ err }, "processing thread failed");
    });
    worker.on("exit", (code) => {
      if (current !== worker) return;
      current = undefined;
      readyId = undefined;
      if (stopping) return;
      if (firstReady) {
        firstReady.reject(new Error(`the processing thread exited (code ${code}) before it was ready`, { cause: failure }));
        firstReady = undefined;
        return;
      }
      logger.error({ code, restartInMs: backoffMs }, "processing thread exited; restarting it");
      restart = setTimeout(spawn, backoffMs);
      backoffMs = Math.min(backoffMs * 2, RESTART_MAX_MS);
    });
  };

  const post = (message: ToThread) => current?.postMessage(message);
  const thread: ProcessingThread = {
    wake: (lanes) => post({ type: "wake", lanes }),
    silencesChanged: (projectId) => post({ type: "silences", projectId }),
    healthy: () => readyId !== undefined,
    threadId: () => readyId,
    async kill() {
      await current?.terminate();
    },
    async stop() {
      stopping = true;
      if (restart) clearTimeout(restart);
      const worker = current;
      if (!worker) return;
      const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      const stopped = new Promise<void>((resolve) =>
        worker.on("message", (message: FromThread) => message.type === "stopped" && resolve()),
      );
      post({ type: "stop" });
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([stopped, exited, new Promise<void>((resolve) => (bound = setTimeout(resolve, STOP_BOUND_MS)))]);
      clearTimeout(bound);
      await worker.terminate();
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    firstReady = { resolve: () => resolve(thread), reject };
    spawn();
  });
}
