import { AppError, type Logger, z } from "@tocsin/core";
import { digest, type MailDeps, notify, send } from "../domain/mail/pipeline.js";
import { type DigestJob, type MailJobs, MailRejectedError, type NotifyJob, type SendJob } from "../domain/mail/ports.js";
import { pageMail } from "../domain/paging/page-mail.js";
import type { PageMailJob, PagingJobs, ProjectMembers } from "../domain/paging/ports.js";
import { laneOf } from "./job-facts.js";
import { type JobQueue, type JobRunner, type RetryPolicy, UnrecoverableJobError } from "./queue.js";

/** Mail-queue facts: names, job names, payload schemas, idempotency ids, lanes, retries. */

/** Concurrent sends: one SMTP connection per lane (nodemailer sends one message per connection at a time). */
export const MAIL_LANES = 16;
export const mailQueueName = (lane: number) => `mail-lane-${lane}`;
const MAIL_JOB_NAMES = { notify: "notify", digest: "digest", send: "send", page: "page" } as const;

/** Idempotency ids: one notify per (alert, transition), one digest per window, one send per delivery key. */
const notifyJobId = (job: NotifyJob) => `notify:${job.alertId}:${job.transition}`;
const digestJobId = (job: DigestJob) => `digest:${job.projectId}:${job.windowStart}`;
const sendJobId = (job: SendJob) => `send:${job.key}`;
/** One page job per (alert, trigger, rule, round): its key is `page:…`. */
const pageMailJobId = (job: PageMailJob) => `mail-${job.key}`;

const notifySchema = z.object({
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  alertId: z.number().int().positive(),
  transition: z.enum(["triggered", "resolved"]),
});

const digestSchema = z.object({
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  windowStart: z.number().int().nonnegative(),
});

const pageSchema = z.object({
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  alertId: z.number().int().positive(),
  key: z.string().min(1),
  policyName: z.string(),
  users: z.array(z.object({ id: z.number().int().positive(), username: z.string() })),
});

const sendSchema = z.object({
  requestId: z.string().min(1),
  key: z.string().min(1),
  mail: z.object({
    messageId: z.string().min(1),
    from: z.string().min(1),
    to: z.string().min(1),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
    inReplyTo: z.string().optional(),
    headers: z.record(z.string(), z.string()),
  }),
});

export interface MailRetryOptions {
  /** First retry delay (default 30 s). */
  initialMs: number;
  /** Longest delay between two attempts (default 1 h). */
  maxMs: number;
  /** Attempts continue until their delays add up to at least this (default 25 h ≥ the 24 h of section 9). */
  forMs: number;
}

export const DEFAULT_MAIL_RETRY: MailRetryOptions = { initialMs: 30_000, maxMs: 3_600_000, forMs: 25 * 3_600_000 };

/** Exponential backoff capped at `maxMs`, with as many attempts as it takes to cover `forMs`. */
export function mailRetryPolicy(opts: MailRetryOptions): RetryPolicy {
  const backoff = (attempt: number) => Math.min(opts.maxMs, opts.initialMs * 2 ** Math.min(40, Math.max(0, attempt - 1)));
  let total = 0;
  let attempts = 1;
  while (total < opts.forMs) total += backoff(attempts++);
  return { maxAttempts: attempts, backoff };
}

/** The domain's MailJobs port over a JobQueue. */
export function createMailJobs(queue: JobQueue, lanes = MAIL_LANES): MailJobs & Pick<PagingJobs, "enqueuePageMail"> {
  const lane = (id: string) => laneOf(id, lanes);
  return {
    async enqueueNotifies(jobs) {
      await queue.addBulk(
        jobs.map((job) => {
          const id = notifyJobId(job);
          return { id, name: MAIL_JOB_NAMES.notify, lane: lane(id), data: job };
        }),
      );
    },
    async enqueueDigest(job, delayMs) {
      const id = digestJobId(job);
      await queue.add({ id, name: MAIL_JOB_NAMES.digest, lane: lane(id), data: job, delayMs });
    },
    async enqueuePageMail(job) {
      const id = pageMailJobId(job);
      await queue.add({ id, name: MAIL_JOB_NAMES.page, lane: lane(id), data: job });
    },
    async enqueueSends(jobs) {
      await queue.addBulk(
        jobs.map((job) => {
          const id = sendJobId(job);
          return { id, name: MAIL_JOB_NAMES.send, lane: lane(id), data: job };
        }),
      );
    },
  };
}

const SCHEMAS = { notify: notifySchema, digest: digestSchema, send: sendSchema, page: pageSchema } as const;

/** Validates mail-job data and runs the step; invalid data and 5xx refusals are not retried. */
export function createMailJobRunner(deps: MailDeps & { members: ProjectMembers }, logger: Logger): JobRunner {
  return async (job) => {
    const schema = SCHEMAS[job.name as keyof typeof SCHEMAS];
    const parsed = schema?.safeParse(job.data);
    if (!parsed?.success) throw new UnrecoverableJobError(`invalid job ${job.name} ${job.id}`);
    const data = parsed.data;
    const log = logger.child({ requestId: data.requestId, jobId: job.id, job: job.name, attempt: job.attempt });
    try {
      if (job.name === MAIL_JOB_NAMES.notify) await notify(deps, data as NotifyJob, log);
      else if (job.name === MAIL_JOB_NAMES.digest) await digest(deps, data as DigestJob, log);
      else if (job.name === MAIL_JOB_NAMES.page) await pageMail(deps, data as PageMailJob, log);
      else await send(deps, data as SendJob, log);
      return null;
    } catch (err) {
      if (err instanceof MailRejectedError) throw new UnrecoverableJobError(err.message, { cause: err });
      if (AppError.is(err) && (err.code === "INVALID_ARGUMENT" || err.code === "NOT_FOUND")) {
        throw new UnrecoverableJobError(err.message, { cause: err });
      }
      if (job.name !== MAIL_JOB_NAMES.send) log.warn({ err }, "mail job failed");
      throw err;
    }
  };
}
