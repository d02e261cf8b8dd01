import type { CallContext } from "@tocsin/core";

/** The two alert changes that send e-mail (PRODUCT.md section 9). */
export type Transition = "triggered" | "resolved";

export interface MailRecipient {
  userId: number;
  email: string;
}

/** Port over settings-service: whom to e-mail about the project's alerts, read fresh each call. */
export interface AlertRecipients {
  forProject(projectId: number, ctx: CallContext): Promise<MailRecipient[]>;
  /** The notification e-mails the users saved in their global setting; users who saved none are left out (their primary e-mail applies). */
  notificationEmails(userIds: number[], ctx: CallContext): Promise<Map<number, string>>;
}

/** One rendered message, ready for any transport. Serialisable (queued as JSON). */
export interface OutgoingMail {
  /** Without angle brackets: `<local>@<host>`. */
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Message-ID (without brackets) this one replies to. */
  inReplyTo?: string;
  /** Extra headers (List-Id, X-Tocsin-*, Auto-Submitted). */
  headers: Record<string, string>;
}

/** Raised by a transport when the server refused the message for good (5xx): no retry. */
export class MailRejectedError extends Error {
  override readonly name = "MailRejectedError";
  constructor(
    message: string,
    readonly responseCode: number,
  ) {
    super(message);
  }
}

/**
 * Hands one message to the mail server (or the outbox). Resolves once it was accepted; throws
 * MailRejectedError for a permanent refusal and any other error for a transient one (connection
 * failures, 4xx), which the queue retries.
 */
export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** A notification's place in its project's storm-control window. */
export interface StormSlot {
  /** Start of the window (the time of its first notification). */
  windowStart: Date;
  /** 1-based rank of the notification in its window. */
  seq: number;
}

/**
 * Storm-control windows and delivery records. Both are keyed so that re-running a job changes
 * nothing: a notification keeps the slot it first claimed, a delivery is recorded once.
 */
export interface MailStore {
  /**
   * The slot of notification `key` (`<alert id>:<transition>`) of a project: the one it already
   * holds, else the next of the project's window open at `at` (a window lasts `windowMs` from its
   * first notification; when none is open, one starts at `at`).
   */
  claimSlot(projectId: number, key: string, at: Date, windowMs: number): Promise<StormSlot>;
  /** Keys of the notifications ranked after `limit` in a window, by rank. */
  overflow(projectId: number, windowStart: Date, limit: number): Promise<string[]>;
  /** Whether the server accepted the message of `key` (`<notification>:<user id>`). */
  delivered(key: string): Promise<boolean>;
  /** Records that the server accepted the message of `key`; a repeat is ignored. */
  recordDelivery(key: string, messageId: string, at: Date): Promise<void>;
}

/** Mail-queue work, one job per step (queue/mail-jobs.ts maps these to queued jobs). */
export interface NotifyJob {
  requestId: string;
  projectId: number;
  alertId: number;
  transition: Transition;
}

export interface DigestJob {
  requestId: string;
  projectId: number;
  /** Epoch ms of the window's start. */
  windowStart: number;
}

export interface SendJob {
  requestId: string;
  /** Delivery key: `<alert id>:<transition>:<user id>` or `digest:<project>:<window>:<user id>`. */
  key: string;
  mail: OutgoingMail;
}

/** The durable mail queue. Adding a job whose id is known does nothing. */
export interface MailJobs {
  /** Notify jobs, in one call (one commit or one round of commands per lane). */
  enqueueNotifies(jobs: NotifyJob[]): Promise<void>;
  enqueueDigest(job: DigestJob, delayMs: number): Promise<void>;
  enqueueSends(jobs: SendJob[]): Promise<void>;
}

/** Counters of the mail pipeline (Prometheus, see mail/metrics.ts). */
export interface MailMetrics {
  sent(): void;
  failed(): void;
  dropped(): void;
}
