import type { BacklogGateStats } from "./backlog-gate.js";
import type {
  ActivityEntry,
  Alert,
  AlertOutcome,
  AlertSettings,
  AlertStatus,
  Incident,
  IncidentStatus,
  NormalizedAlert,
  Severity,
} from "./model.js";
import type { AlertOverviewStore } from "./overview-model.js";

/** A new alert. `opKey` identifies the processing step that creates it (idempotency). */
export interface NewAlert {
  projectId: number;
  integrationId: number;
  alert: NormalizedAlert;
  status: "triggered" | "resolved";
  opKey: string;
  at: Date;
  /** Activity notes written together with the alert (as `addActivity` would write them later). */
  notes?: Array<{ key: string; note: string }>;
}

export const ALERT_ORDER_FIELDS = [
  "created_at",
  "updated_at",
  "started_at",
  "ended_at",
  "severity",
  "status",
  "events",
  "iid",
] as const;
export type AlertOrderField = (typeof ALERT_ORDER_FIELDS)[number];

export interface AlertQuery {
  status?: AlertStatus;
  /** Case-insensitive substring of title, description, service, monitoring tool or hosts. */
  search?: string;
  severity?: Severity;
  /** Exact monitoring tool, case-insensitive. */
  monitoringTool?: string;
  /** Exact service, case-insensitive. */
  service?: string;
  orderBy: AlertOrderField;
  sort: "asc" | "desc";
  offset: number;
  limit: number;
}

/**
 * Alerts and their activity. The store guarantees at most one unresolved alert per
 * (project, fingerprint) and one alert per `opKey`; iids are per project from 1.
 * Errors: ALREADY_EXISTS reason OPEN_ALERT_EXISTS when a write would give a second unresolved
 * alert for a fingerprint; ALREADY_EXISTS reason OP_APPLIED when `opKey` already created one.
 */
export interface AlertStore {
  create(input: NewAlert): Promise<Alert>;
  findOpen(projectId: number, fingerprint: string): Promise<Alert | undefined>;
  /** The alert a processing step created or changed (if still remembered). */
  findByOp(projectId: number, opKey: string): Promise<{ alert: Alert; created: boolean } | undefined>;
  /** events + 1 on an unresolved alert, unless `opKey` was applied; undefined when nothing changed. */
  registerEvent(alertId: number, opKey: string, at: Date): Promise<Alert | undefined>;
  /** Resolves an unresolved alert, unless `opKey` was applied; undefined when nothing changed. */
  resolve(alertId: number, endedAt: Date, opKey: string, at: Date): Promise<Alert | undefined>;
  /** A user's status change; `endedAt` set exactly when the status is resolved. */
  setStatus(alertId: number, status: AlertStatus, endedAt: Date | undefined, at: Date): Promise<Alert>;
  linkIncident(alertId: number, incidentIid: number, at: Date): Promise<void>;
  get(projectId: number, iid: number): Promise<Alert | undefined>;
  getById(alertId: number): Promise<Alert | undefined>;
  /** `deadlineMs`: the caller's deadline (epoch ms), past which the list is not worth reading. */
  list(projectId: number, query: AlertQuery, deadlineMs?: number): Promise<{ alerts: Alert[]; total: number }>;
  /** Appends a note once per (alert, key); a repeat is ignored. */
  addActivity(alertId: number, key: string, note: string, at: Date): Promise<void>;
  activity(alertId: number): Promise<ActivityEntry[]>;
}

export interface OpenIncident {
  projectId: number;
  alertId: number;
  alertIid: number;
  /** `undefined` → `New: Incident <iid>`. */
  title: string | undefined;
  severity: Incident["severity"];
  at: Date;
}

/** Incidents (at most one per alert) and the project alert settings. */
export interface IncidentStore {
  /** Opens the alert's incident, or returns the one it already has. */
  openForAlert(input: OpenIncident): Promise<{ incident: Incident; created: boolean }>;
  /** Closes an open incident; undefined when it was not open. */
  close(incidentId: number, at: Date): Promise<Incident | undefined>;
  getByAlert(alertId: number): Promise<Incident | undefined>;
  get(projectId: number, iid: number): Promise<Incident | undefined>;
  list(
    projectId: number,
    status: IncidentStatus | undefined,
    offset: number,
    limit: number,
  ): Promise<{ incidents: Incident[]; total: number }>;
  /**
   * The project's alert settings. With `maxAgeMs`, a value this process read at most that long ago
   * will do (changes made through this store are seen at once; another replica's within that time).
   */
  settings(projectId: number, maxAgeMs?: number): Promise<AlertSettings>;
  updateSettings(projectId: number, change: Partial<AlertSettings>, at: Date): Promise<AlertSettings>;
}

/** The first answer to an ingest request with an Idempotency-Key. */
export interface IngestAnswer {
  requestId: string;
  fingerprints: string[];
}

/** Idempotency-Key records and processed-job records. */
export interface RequestLog {
  /** Stores `answer` unless a live record exists; returns the record that holds. */
  reserve(
    integrationId: number,
    key: string,
    answer: IngestAnswer,
    expiresAt: Date,
    now: Date,
  ): Promise<{ answer: IngestAnswer; existed: boolean }>;
  /**
   * Notes that a process-alert job starts. `outcome` when it finished before; `firstRun` only when
   * the store knows that no earlier attempt began, or changed anything (the job need not look for
   * changes of its own then). A store that cannot tell answers `firstRun: false`.
   */
  startJob(jobId: string, at: Date): Promise<{ outcome?: AlertOutcome; firstRun: boolean }>;
  /** Remembers that a job finished, with its outcome (the first outcome recorded stays). */
  recordJob(jobId: string, outcome: AlertOutcome, at: Date): Promise<void>;
  /** The recorded outcomes of these jobs, by job id (one read however many; a job not finished is absent). */
  jobOutcomes(jobIds: readonly string[]): Promise<Map<string, AlertOutcome>>;
  /** Drops expired idempotency records and job records older than `before`. */
  purge(now: Date, before: Date): Promise<void>;
}

export interface AlertsStores {
  alerts: AlertStore;
  incidents: IncidentStore;
  requests: RequestLog;
  /** Counts for the project overview and the dashboard (read-only). */
  overview: AlertOverviewStore;
  /**
   * Runs `fn`, letting the store commit the writes it makes meanwhile together (SQLite: one
   * transaction, committed when `fn` settles, whatever it did; each write stays atomic by itself,
   * and nothing is rolled back because `fn` failed). `fn` should only await this store's methods:
   * anything else that writes on the store before the commit joins it. A batch started while
   * another's is open joins that one and settles only after its commit; when the transaction is
   * lost before its commit (a write that could not stay atomic rolled it back), every batch in it
   * fails. MongoDB: every write commits by itself, as without it.
   */
  batch<T>(fn: () => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

// ---- jobs (implemented by queue/) ----

/** One alert of a request (an Alertmanager batch gives one job per alert, in order). */
export interface ProcessAlertJob {
  /** Job id and idempotency key: the request id, with `#<index>` for batch members after the first. */
  jobId: string;
  requestId: string;
  projectId: number;
  integrationId: number;
  alert: NormalizedAlert;
  /** Log context of the request (e.g. the gateway's request id), carried into the worker. */
  log?: Record<string, string>;
  /** The integration's auto_resolve_minutes when the request came in. */
  autoResolveMinutes?: number;
}

/** Resolves an alert that had no new event for `minutes` (scheduled after each event, delayed). */
export interface AutoResolveJob {
  requestId: string;
  projectId: number;
  alertId: number;
  /** The alert's event count when scheduled: a different count at run time means a new event came. */
  events: number;
  minutes: number;
  laneKey: string;
}

export interface IncidentJob {
  kind: "open" | "close";
  requestId: string;
  projectId: number;
  alertId: number;
  /** The ordering lane of the alert the job is about. */
  laneKey: string;
}

/** A user's status change of one alert, run in the alert's lane (so it never races processing). */
export interface StatusChangeJob {
  requestId: string;
  projectId: number;
  alertId: number;
  status: AlertStatus;
  /** When the user asked (ISO 8601): the change's time and its activity note's key. */
  at: string;
  laneKey: string;
  /** The activity note instead of "changed the status to …" (an acknowledge link: who, from where). */
  note?: string;
}

/**
 * Looks again at an alert whose firing event a silence held (issue 24), at the end of the
 * earliest silence over it: still triggered and no longer covered → `alert.unsilenced`.
 */
export interface UnsilenceJob {
  requestId: string;
  projectId: number;
  alertId: number;
  /** ISO 8601: the end of the silence it waits for (with the alert, the job's idempotency key). */
  at: string;
  laneKey: string;
}

/** One timer per alert and silence end: a second hold of the alert until the same end adds nothing. */
export const unsilenceJobId = (job: Pick<UnsilenceJob, "alertId" | "at">) => `unsilence-${job.alertId}-${Date.parse(job.at)}`;

/** `conflict`: another unresolved alert has the fingerprint (a reopen is refused). */
export type StatusChangeResult = { changed: boolean } | { conflict: true };

interface QueueStats {
  pending: number;
  processed: number;
  failed: number;
}

/** GetIngestStats: the queue's counts and what the backlog bound did. */
export interface IngestStats extends QueueStats, BacklogGateStats {}

/**
 * The work queue. `enqueue*` resolves only once the job is durably stored; a job with the same
 * id as a known one is not added twice. Jobs of one lane key run one at a time, in order.
 * Errors: UNAVAILABLE (QUEUE_UNAVAILABLE, retryAfterSeconds) when the queue cannot take a job.
 */
export interface AlertJobs {
  /** Enqueues a request's alerts at once; alerts of one lane key are queued in array order. */
  enqueueAlerts(jobs: ProcessAlertJob[]): Promise<void>;
  enqueueIncident(job: IncidentJob): Promise<void>;
  /**
   * Runs a status change in the alert's lane and waits for it: undefined when it has not run
   * within `timeoutMs` (it still runs later).
   */
  changeStatus(job: StatusChangeJob, timeoutMs: number): Promise<StatusChangeResult | undefined>;
  /**
   * What processed alerts ask for, in one call per queue: incident jobs (in array order per lane)
   * and auto-resolve jobs, each running its `delayMs` from now (durably: they survive restarts).
   */
  enqueueFollowUps(work: {
    incidents: IncidentJob[];
    autoResolves: Array<{ job: AutoResolveJob; delayMs: number }>;
  }): Promise<void>;
  /** Unsilence timers, each due at its `at` (durably, like auto-resolve; same id → added once); a due one runs at once. */
  scheduleUnsilence(jobs: UnsilenceJob[]): Promise<void>;
  /**
   * Whether a process-alert job completed within `timeoutMs`; false at once when `signal` aborts
   * (the wait is dropped). Its outcome is read from the request log (`RequestLog.jobOutcomes`), the
   * one place it is kept: the queue's ends carry none.
   */
  waitFor(job: ProcessAlertJob, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  stats(): Promise<QueueStats>;
}

export function alertJobId(requestId: string, index: number): string {
  return index === 0 ? requestId : `${requestId}#${index}`;
}

/** A status change's job id: one per request. */
export const statusChangeJobId = (job: Pick<StatusChangeJob, "requestId">) => `status-${job.requestId}`;

/** An incident job's id: one open job per alert; one close job per alert and request. */
export const incidentJobId = (job: Pick<IncidentJob, "kind" | "alertId" | "requestId">) =>
  job.kind === "open" ? `incident-open-${job.alertId}` : `incident-close-${job.alertId}-${job.requestId}`;

/**
 * The lane of every write to an existing alert (events, resolves, incident links, status changes,
 * auto-resolve): its (project, fingerprint), or the alert itself when it has no fingerprint.
 * With BullMQ a lane runs one job at a time across all replicas, so an alert has one writer at a
 * time on any MongoDB-protocol store (docs/architecture.md, "Several replicas").
 */
export function alertLaneKey(alert: { projectId: number; id: number; fingerprint: string | undefined }): string {
  return alert.fingerprint ? `${alert.projectId}:${alert.fingerprint}` : `alert:${alert.id}`;
}

/** Ordering key of a new alert's job: (project, fingerprint), or the request for ungroupable alerts. */
export function laneKeyOf(projectId: number, fingerprint: string | undefined, requestId: string): string {
  return fingerprint ? `${projectId}:${fingerprint}` : `request:${requestId}`;
}
