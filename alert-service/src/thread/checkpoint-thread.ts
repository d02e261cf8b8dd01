import { Worker } from "node:worker_threads";
import type { Logger } from "@tocsin/core";
import { WAL_AUTOCHECKPOINT_PAGES } from "@tocsin/store";
import { threadEntry } from "./entry.js";

export interface CheckpointerData {
  /** The database files whose WAL the thread checkpoints (their writers open them with `checkpoints: "elsewhere"`). */
  files: string[];
  /** Frames waiting in a WAL that start a checkpoint of it. */
  pages: number;
  /** How often the thread looks at each WAL (a read of its wal-index header). */
  pollMs: number;
}

export interface CheckpointThread {
  /** Ends the thread after its running checkpoint (bounded: then it is terminated). */
  stop(): Promise<void>;
}

const POLL_MS = 50;
const STOP_BOUND_MS = 5_000;

/**
 * Starts a thread that checkpoints `files` in place of their writer (libs/store
 * wal-checkpoints.ts); it opens them on its own, nothing waits for it. A thread that fails is
 * logged and not restarted: each writer's own automatic checkpoint, at its backstop, keeps the
 * WAL bounded.
 */
export function startCheckpointThread(
  files: string[],
  logger: Logger,
  opts: Partial<Omit<CheckpointerData, "files">> = {},
): CheckpointThread {
  const { filename, ...how } = threadEntry("checkpointer");
  const data: CheckpointerData = { files, pages: opts.pages ?? WAL_AUTOCHECKPOINT_PAGES, pollMs: opts.pollMs ?? POLL_MS };
  const worker = new Worker(filename, { ...how, workerData: data });
  worker.on("error", (err) =>
    logger.error({ err, files }, "checkpoint thread failed; the writers' own checkpoints bound the WAL"),
  );
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  return {
    async stop() {
      worker.postMessage({ type: "stop" });
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise<void>((resolve) => (bound = setTimeout(resolve, STOP_BOUND_MS)))]);
      clearTimeout(bound);
      await worker.terminate();
    },
  };
}
