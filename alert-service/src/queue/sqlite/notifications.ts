import { EventEmitter } from "node:events";
import { prepared } from "@tocsin/store";
import type { Database as Db } from "better-sqlite3";
import type { JobResult } from "../queue.js";
import type { EndedJob } from "./options.js";
import { packedEnd } from "./packs.js";

/** The ends of jobs: counted, and announced to whoever waits for one (`waitFor`). */
export class JobEnds {
  private readonly events = new EventEmitter();
  private processed = 0;
  private failed = 0;

  constructor(private readonly db: Db) {
    this.events.setMaxListeners(0);
  }

  /** Jobs that ended, here or in another thread that runs this file's lanes (already committed). */
  told(jobs: EndedJob[]): void {
    for (const { id, result } of jobs) {
      if (result.state === "completed") this.processed++;
      else this.failed++;
      this.events.emit(id, result);
    }
  }

  /** The job's end: as stored, or as soon as it is told, or undefined after `timeoutMs` or once `signal` aborts. */
  async waitFor(id: string, timeoutMs: number, signal?: AbortSignal): Promise<JobResult | undefined> {
    // Synchronous read and listener registration in one tick: no completion can slip between.
    const done = this.stored(id);
    if (done || timeoutMs <= 0 || signal?.aborted) return done;
    return new Promise((resolve) => {
      const settle = (result: JobResult | undefined) => {
        clearTimeout(timer);
        this.events.off(id, settle);
        signal?.removeEventListener("abort", dropped);
        resolve(result);
      };
      const dropped = () => settle(undefined);
      const timer = setTimeout(dropped, timeoutMs);
      this.events.once(id, settle);
      signal?.addEventListener("abort", dropped, { once: true });
    });
  }

  counts() {
    const { n } = prepared(this.db, "SELECT COALESCE(SUM(units - done), 0) AS n FROM jobs WHERE status = 'pending'").get() as {
      n: number;
    };
    return { pending: n, processed: this.processed, failed: this.failed };
  }

  private stored(id: string): JobResult | undefined {
    const row = prepared(this.db, "SELECT status, result, error FROM jobs WHERE id = ?").get(id) as
      | { status: string; result: string | null; error: string | null }
      | undefined;
    if (row?.status === "completed") return { state: "completed", result: JSON.parse(row.result ?? "null") };
    if (row?.status === "failed") return { state: "failed", error: row.error ?? "" };
    return row ? undefined : packedEnd(this.db, id);
  }
}
