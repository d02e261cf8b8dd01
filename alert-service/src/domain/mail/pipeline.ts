import type { Clock, Logger } from "@tocsin/core";
import type { Alert } from "../alerts/model.js";
import type { AlertStore } from "../alerts/ports.js";
import type { ProjectAccess } from "../ports.js";
import { type DigestEntry, type MailSettings, renderAlertMail, renderDigestMail } from "./message.js";
import {
  type AlertRecipients,
  type DigestJob,
  type MailJobs,
  type MailMetrics,
  MailRejectedError,
  type MailStore,
  type MailTransport,
  type NotifyJob,
  type SendJob,
  type Transition,
} from "./ports.js";

/** Storm control (PRODUCT.md section 9): the first `limit` notifications of a window go one by one. */
interface StormControl {
  windowMs: number;
  limit: number;
}

export interface MailDeps {
  store: MailStore;
  alerts: Pick<AlertStore, "getById">;
  projects: ProjectAccess;
  recipients: AlertRecipients;
  jobs: MailJobs;
  transport: MailTransport;
  metrics: MailMetrics;
  clock: Clock;
  settings: MailSettings;
  storm: StormControl;
}

const notificationKey = (alertId: number, transition: Transition) => `${alertId}:${transition}`;

function parseKey(key: string): { alertId: number; transition: Transition } {
  const [id, transition] = key.split(":");
  return { alertId: Number(id), transition: transition === "resolved" ? "resolved" : "triggered" };
}

async function projectOf(deps: MailDeps, projectId: number, requestId: string) {
  const ref = await deps.projects.byId(projectId, { requestId });
  return { id: ref.id, fullPath: ref.fullPath };
}

/** What a claimed notification asks for: its notify job (within the limit), or its window's digest. */
export type ClaimedMail = { notify: NotifyJob } | { digest: DigestJob; delayMs: number };

/**
 * The alert pipeline's side of e-mail, in two steps so that a batch of processed alerts commits
 * its claims with its alert changes and enqueues once. `claim` (called by the processing job for
 * each transition that mails) takes the notification's storm-control slot in the alert database,
 * keyed, so that a re-run gets the same answer; only store writes. `enqueue` adds the notify
 * jobs within the limit, and beyond it the window's digest job (delayed to the window's end,
 * added once per window by this process). Both ids are keyed, so re-running changes nothing.
 */
export interface Notifier {
  claim(job: NotifyJob): Promise<ClaimedMail>;
  enqueue(claimed: ClaimedMail[]): Promise<void>;
}

export function createNotifier(deps: Pick<MailDeps, "store" | "jobs" | "clock" | "storm">): Notifier {
  // Digest jobs this process already enqueued: a storm adds its window's digest once, not per alert.
  const digests = new Set<string>();
  return {
    async claim(job) {
      const key = notificationKey(job.alertId, job.transition);
      const now = deps.clock.now();
      const slot = await deps.store.claimSlot(job.projectId, key, now, deps.storm.windowMs);
      if (slot.seq <= deps.storm.limit) return { notify: job };
      const windowStart = slot.windowStart.getTime();
      const delayMs = Math.max(0, windowStart + deps.storm.windowMs - now.getTime());
      return { digest: { requestId: job.requestId, projectId: job.projectId, windowStart }, delayMs };
    },
    async enqueue(claimed) {
      const notifies: NotifyJob[] = [];
      const windows = new Map<string, { job: DigestJob; delayMs: number }>();
      for (const c of claimed) {
        if ("notify" in c) notifies.push(c.notify);
        else {
          const id = `${c.digest.projectId}:${c.digest.windowStart}`;
          if (!digests.has(id) && !windows.has(id)) windows.set(id, { job: c.digest, delayMs: c.delayMs });
        }
      }
      if (notifies.length) await deps.jobs.enqueueNotifies(notifies);
      for (const [id, { job, delayMs }] of windows) {
        await deps.jobs.enqueueDigest(job, delayMs);
        if (digests.size > 10_000) digests.clear();
        digests.add(id);
      }
    },
  };
}

/** The notify job of one alert transition within the storm limit: one send job per recipient. */
export async function notify(deps: MailDeps, job: NotifyJob, logger: Logger): Promise<void> {
  const key = notificationKey(job.alertId, job.transition);
  const alert = await deps.alerts.getById(job.alertId);
  if (!alert) return;
  const project = await projectOf(deps, job.projectId, job.requestId);
  const recipients = await deps.recipients.forProject(job.projectId, { requestId: job.requestId });
  await deps.jobs.enqueueSends(
    recipients.map((to) => ({
      requestId: job.requestId,
      key: `${key}:${to.userId}`,
      mail: renderAlertMail(deps.settings, project, alert, job.transition, to),
    })),
  );
  logger.debug({ key, recipients: recipients.length }, "alert e-mails queued");
}

/** The digest job at a window's end: one digest per recipient listing the overflow. */
export async function digest(deps: MailDeps, job: DigestJob, logger: Logger): Promise<void> {
  const keys = await deps.store.overflow(job.projectId, new Date(job.windowStart), deps.storm.limit);
  const entries: DigestEntry[] = [];
  for (const key of keys) {
    const { alertId, transition } = parseKey(key);
    const alert: Alert | undefined = await deps.alerts.getById(alertId);
    if (alert) entries.push({ alert, transition });
  }
  if (entries.length === 0) return;
  const project = await projectOf(deps, job.projectId, job.requestId);
  const recipients = await deps.recipients.forProject(job.projectId, { requestId: job.requestId });
  await deps.jobs.enqueueSends(
    recipients.map((to) => ({
      requestId: job.requestId,
      key: `digest:${job.projectId}:${job.windowStart}:${to.userId}`,
      mail: renderDigestMail(deps.settings, project, job.windowStart, entries, to),
    })),
  );
  logger.info({ alerts: entries.length, recipients: recipients.length }, "alert digest queued");
}

/**
 * The send job: hands the message to the transport unless the server already accepted it, then
 * records the acceptance. A 5xx drops the message (no retry); anything else is retried by the
 * queue with backoff.
 */
export async function send(deps: MailDeps, job: SendJob, logger: Logger): Promise<void> {
  if (await deps.store.delivered(job.key)) return;
  try {
    await deps.transport.send(job.mail);
  } catch (err) {
    if (err instanceof MailRejectedError) {
      deps.metrics.dropped();
      logger.warn({ err, to: job.mail.to, code: err.responseCode }, "alert e-mail refused by the mail server: dropped");
    } else {
      deps.metrics.failed();
      logger.warn({ err, to: job.mail.to }, "alert e-mail not delivered yet: will retry");
    }
    throw err;
  }
  await deps.store.recordDelivery(job.key, job.mail.messageId, deps.clock.now());
  deps.metrics.sent();
  logger.debug({ to: job.mail.to, messageId: job.mail.messageId }, "alert e-mail sent");
}
