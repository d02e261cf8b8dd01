import { failureOf, type Span, type Tracing } from "@tocsin/telemetry";
import type { JobQueue, JobRunner, QueuedJob, RunningJob } from "./queue.js";

/** Where a queue's spans say their messages go. */
export interface QueueTraceNames {
  /** messaging.system: `bullmq`, or `local` for the SQLite-backed in-process queue. */
  system: string;
  /** messaging.destination.name: the queue (`alerts`, `alert-timers`, `mail`); its lanes are partitions. */
  destination: string;
}

/** The key of job data that carries the W3C context of the job's producer span. */
const TRACE_KEY = "trace";

/**
 * A JobQueue whose jobs carry their trace: each job added gets a producer span (a child of the
 * span current when it is added) whose `traceparent` travels in the job data under `trace`, and
 * each run gets a consumer span, a child of that producer span, current while the job runs — so
 * the gRPC calls and jobs of a run join the alert's trace. Without tracing the queue is returned
 * as is. The job schemas ignore the extra key; domain code never sees it.
 */
export function tracedQueue(queue: JobQueue, tracing: Tracing | undefined, names: QueueTraceNames): JobQueue {
  if (!tracing) return queue;
  const attributes = (job: { id: string; name: string }, operation: "send" | "process") => ({
    "messaging.system": names.system,
    "messaging.operation.type": operation,
    "messaging.operation.name": operation,
    "messaging.destination.name": names.destination,
    "messaging.message.id": job.id,
    "tocsin.job.name": job.name,
  });
  const produce = (job: QueuedJob): { span: Span; job: QueuedJob } => {
    const span = tracing.startSpan(`send ${names.destination}`, {
      kind: "producer",
      attributes: { ...attributes(job, "send"), "messaging.destination.partition.id": String(job.lane) },
    });
    const data = isRecord(job.data) ? { ...job.data, [TRACE_KEY]: span.carrier() } : job.data;
    return { span, job: { ...job, data } };
  };
  const settle = async (spans: Span[], add: Promise<void>) => {
    try {
      await add;
      for (const span of spans) span.end();
    } catch (err) {
      for (const span of spans) span.end(failureOf(err));
      throw err;
    }
  };
  const consume =
    (run: JobRunner): JobRunner =>
    async (job: RunningJob) => {
      const carrier = isRecord(job.data) ? job.data[TRACE_KEY] : undefined;
      const span = tracing.startSpan(`process ${names.destination}`, {
        kind: "consumer",
        attributes: { ...attributes(job, "process"), "tocsin.job.attempt": job.attempt },
        parent: tracing.extract(isRecord(carrier) ? carrier : undefined) ?? null,
      });
      try {
        const result = await tracing.run(span, () => run(job));
        span.end();
        return result;
      } catch (err) {
        span.end(failureOf(err));
        throw err;
      }
    };
  return {
    add(job) {
      const produced = produce(job);
      return settle([produced.span], queue.add(produced.job));
    },
    addBulk(jobs) {
      const produced = jobs.map(produce);
      return settle(
        produced.map((p) => p.span),
        queue.addBulk(produced.map((p) => p.job)),
      );
    },
    start: (run) => queue.start(consume(run)),
    waitFor: (id, lane, timeoutMs) => queue.waitFor(id, lane, timeoutMs),
    counts: () => queue.counts(),
    healthy: () => queue.healthy(),
    close: () => queue.close(),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
