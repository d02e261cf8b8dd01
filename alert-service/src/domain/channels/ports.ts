import type { ChatKind, DestinationPatch, DestinationRecord, NewDestination } from "./types.js";

/**
 * Where destinations are kept (the alert database). A project has at most one chat integration
 * of each kind — a unique index, not only code — and any number of hooks. Ids increase.
 */
export interface DestinationStore {
  /** Inserts; ALREADY_EXISTS (DESTINATION_EXISTS) for a second chat integration of a kind. */
  insert(destination: NewDestination): Promise<DestinationRecord>;
  get(projectId: number, id: number): Promise<DestinationRecord | undefined>;
  /** The project's chat integration of `kind`, if saved. */
  chat(projectId: number, kind: ChatKind): Promise<DestinationRecord | undefined>;
  /** The project's destinations, oldest first (every kind, or hooks alone with `kind: "hook"`). */
  list(projectId: number, kind?: "hook"): Promise<DestinationRecord[]>;
  /** Every project's destinations, oldest first (the start-up pass that seals secrets written in plain). */
  all(): Promise<DestinationRecord[]>;
  /**
   * Changes the given fields; undefined when there is no such destination, or when `ifUpdatedAt`
   * is given and the destination changed since (its `updatedAt` differs).
   */
  update(projectId: number, id: number, patch: DestinationPatch, ifUpdatedAt?: Date): Promise<DestinationRecord | undefined>;
  /** True when it existed. */
  delete(projectId: number, id: number): Promise<boolean>;
  ping(): Promise<void>;
}

/**
 * Each destination's send slots (PRODUCT.md section 12: at most one message a second per
 * destination), shared by every replica where they share a queue.
 */
export interface SendSlots {
  /** Reserves the destination's next slot, `intervalMs` after its last one; answers in how many ms it starts (0: now). */
  reserve(destinationId: number, intervalMs: number): Promise<number>;
}

/** Where a delivery stands: queued or failing and to be tried again, done, given up, or folded into a storm summary. */
export type DeliveryStatus = "retrying" | "delivered" | "failed" | "summarized";

/** One message to one destination, with its attempts: the delivery log (kept 7 days). */
export interface DeliveryRecord {
  id: number;
  /** The job's idempotency key (`deliver:<eventId>:<destination>`, `resend:…`, `summary:…`): unique. */
  key: string;
  projectId: number;
  destinationId: number;
  /** `alert.triggered` … `incident.closed`, or `summary`. */
  eventType: string;
  /** The alert event's id (`Idempotency-Key`, `webhook-id`); the summary's key for a summary. */
  eventId: string;
  /** 0 for a summary. */
  alertId: number;
  status: DeliveryStatus;
  attempts: number;
  /** The last answer's HTTP status; null when none came. */
  responseStatus: number | null;
  durationMs: number;
  /** Why the last attempt failed (never a receiver's body). */
  error: string | null;
  /** Not before this (a receiver's Retry-After). */
  notBefore: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

type NewDelivery = Pick<
  DeliveryRecord,
  "key" | "projectId" | "destinationId" | "eventType" | "eventId" | "alertId" | "createdAt"
>;

type DeliveryOutcome = Pick<DeliveryRecord, "status" | "attempts" | "responseStatus" | "durationMs" | "error" | "notBefore"> & {
  at: Date;
};

/** The delivery log. Ids increase in the order deliveries are opened. */
export interface DeliveryLog {
  /** The delivery of `key`, opened now (status `retrying`, no attempts) unless it exists: idempotent. */
  open(delivery: NewDelivery): Promise<DeliveryRecord>;
  record(id: number, outcome: DeliveryOutcome): Promise<void>;
  get(projectId: number, id: number): Promise<DeliveryRecord | undefined>;
  /** A destination's deliveries since `since`, newest first, without the `summarized` ones; at most `limit`. */
  list(destinationId: number, since: Date, limit: number): Promise<DeliveryRecord[]>;
  /** How many non-summary deliveries of the destination were opened in [from, to) with an id up to `upToId`. */
  rank(destinationId: number, from: Date, to: Date, upToId: number): Promise<number>;
  /** How many deliveries of the destination opened in [from, to) were folded into the summary. */
  summarized(destinationId: number, from: Date, to: Date): Promise<number>;
  /** Deletes deliveries opened before `before`. */
  purge(before: Date): Promise<void>;
}

/** One delivery job (queue/channel-jobs.ts): an event to a destination, a resend, or a window's summary. */
export interface DeliveryJob {
  requestId: string;
  projectId: number;
  destinationId: number;
  eventType: string;
  eventId: string;
  alertId: number;
  /** The job's key; also the delivery's. */
  key: string;
}

/** The delivery queue, as the domain sees it. */
export interface DeliveryJobs {
  /** Adds the jobs (keyed: a known key is ignored), each in its destination's lane, in order. */
  enqueue(jobs: DeliveryJob[]): Promise<void>;
  /** Adds a window's storm summary, to run no earlier than `delayMs` from now (keyed: once per window). */
  enqueueLater(job: DeliveryJob, delayMs: number): Promise<void>;
}

/** One HTTP POST to a receiver. */
export interface OutboundRequest {
  url: string;
  /** JSON text. */
  body: string;
  headers: Record<string, string>;
  verifyTls: boolean;
  /** Post through Slack's own client (@slack/webhook). */
  slack: boolean;
}

/**
 * How an attempt ended: an HTTP answer (`status`, `retryAfterMs` from Retry-After), or no answer
 * (`failure`: `timeout`, `connection`, or `refused` — a local address without
 * OUTBOUND_ALLOW_LOCAL_NETWORK).
 */
export interface AttemptResult {
  status: number | null;
  failure?: "timeout" | "connection" | "refused";
  /** Safe to log and show: never the receiver's body. */
  error?: string;
  retryAfterMs?: number;
  durationMs: number;
}

/** Posts to receivers: never follows a redirect, never logs a body. */
export interface Sender {
  post(request: OutboundRequest): Promise<AttemptResult>;
}
