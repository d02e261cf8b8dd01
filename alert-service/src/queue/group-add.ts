import type { QueuedJob } from "./queue.js";

interface PendingAdd {
  jobs: QueuedJob[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for a queue whose writes are round trips (BullMQ): the adds that arrive while a
 * write is on its way are written together, in the order they arrived, by the next one, and each
 * resolves (or fails) with the write that carried it. A lone add is written at the end of its
 * turn of the event loop, as before. On an ordered lane the jobs of one write travel as one
 * BullMQ job (bullmq-packs.ts): single-alert posts arriving together cost one Redis job per lane.
 */
export class GroupAdd {
  private waiting: PendingAdd[] = [];
  private writing = false;

  constructor(private readonly write: (jobs: QueuedJob[]) => Promise<void>) {}

  add(jobs: QueuedJob[]): Promise<void> {
    if (jobs.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiting.push({ jobs, resolve, reject });
      if (this.waiting.length === 1 && !this.writing) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    if (this.writing || this.waiting.length === 0) return;
    const items = this.waiting;
    this.waiting = [];
    this.writing = true;
    this.write(items.flatMap((item) => item.jobs))
      .then(
        () => {
          for (const item of items) item.resolve();
        },
        (err: unknown) => {
          for (const item of items) item.reject(err);
        },
      )
      .finally(() => {
        this.writing = false;
        this.flush();
      });
  }
}
