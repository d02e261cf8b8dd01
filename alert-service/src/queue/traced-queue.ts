import { failureOf, type Span, type Tracing } from "@tocsin/telemetry";
import {
  asBatchWorker,
  type BatchWorker,
  type JobOutcome,
  type JobQueue,
  type JobRunner,
  type QueuedJob,
  type RunningJob,
} from "./queue.js";

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
    const requestId = requestIdOf(job.data);
    const parent = requestId === undefined ? undefined : tracing.requestSpan(requestId);
    const span = tracing.startSpan(`send ${names.destination}`, {
      kind: "producer",
      attributes: { ...attributes(job, "send"), "messaging.destination.partition.id": String(job.lane) },
      ...(parent ? { parent } : {}),
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
  const startConsumer = (job: RunningJob) => {
    const carrier = isRecord(job.data) ? job.data[TRACE_KEY] : undefined;
    return tracing.startSpan(`process ${names.destination}`, {
      kind: "consumer",
      attributes: { ...attributes(job, "process"), "tocsin.job.attempt": job.attempt },
      parent: tracing.extract(isRecord(carrier) ? carrier : undefined) ?? null,
    });
  };
  /**
   * One consumer span per job of a batch, each ending with its job's outcome; the batch runs with
   * the first job's span current, and each job's span found by its request id (`runBatch`), so
   * that what a job calls or enqueues for its own request joins that request's trace. A job the
   * batch did not reach (after a failure) ends marked `tocsin.job.deferred`: it runs again in a
   * later batch, under a span of its own.
   */
  const consume = (run: JobRunner | BatchWorker): BatchWorker => {
    const worker = asBatchWorker(run);
    return {
      maxJobs: worker.maxJobs,
      async batch(jobs) {
        const spans = jobs.map(startConsumer);
        for (const span of spans) span.setAttributes({ "messaging.batch.message_count": jobs.length });
        const batch = jobs.map((job, i) => ({ requestId: requestIdOf(job.data), span: spans[i] as Span }));
        let outcomes: JobOutcome[];
        try {
          outcomes = await tracing.runBatch(batch, () => worker.batch(jobs));
        } catch (error) {
          outcomes = [{ ok: false, error }];
        }
        spans.forEach((span, i) => {
          const outcome = outcomes[i];
          if (!outcome) span.setAttributes({ "tocsin.job.deferred": true });
          span.end(outcome && !outcome.ok ? failureOf(outcome.error) : undefined);
        });
        return outcomes;
      },
    };
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
    waitFor: (id, lane, timeoutMs, signal) => queue.waitFor(id, lane, timeoutMs, signal),
    counts: () => queue.counts(),
    healthy: () => queue.healthy(),
    close: () => queue.close(),
  };
}

/** The request a job works for (every Tocsin job's data has `requestId`). */
function requestIdOf(data: unknown): string | undefined {
  return isRecord(data) && typeof data.requestId === "string" ? data.requestId : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
