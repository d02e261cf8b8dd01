import { AppError, type CallContext, type Clock, invalidArgument, notFound } from "@tocsin/core";
import type { EscalationStore, ProjectMembers } from "../paging/ports.js";
import type { IntegrationDirectory, ProjectAccess } from "../ports.js";
import type { IntegrationRuntime, Tier } from "../types.js";
import type { BacklogGate } from "./backlog-gate.js";
import { type IntakeLimiter, isRecovery, type RateLimitState } from "./intake-limit.js";
import type { AlertOutcome, NormalizedAlert } from "./model.js";
import { normalizeGeneric } from "./normalize.js";
import { type AlertJobs, type AlertsStores, alertJobId, type ProcessAlertJob } from "./ports.js";
import { normalizeAlertmanager } from "./prometheus.js";

export const MAX_WAIT_MS = 10_000;
const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

/** What the alert reads and the acknowledge link need of paging. */
export interface AlertPaging {
  escalations: EscalationStore;
  members: ProjectMembers;
  /** SECRET_KEY (signs and checks acknowledge links). */
  secretKey?: string | undefined;
  /** Length of one policy second (1000; shorter in tests). */
  secondMs: number;
}

export interface IngestDeps {
  stores: AlertsStores;
  jobs: AlertJobs;
  projects: ProjectAccess;
  integrations: IntegrationDirectory;
  clock: Clock;
  /** The bound on the processing backlog (INGEST_BACKLOG_LIMIT); without it no request is held. */
  backlog?: BacklogGate;
  /** Per-integration webhook budgets (section 10); without it nothing is limited. */
  limiter?: IntakeLimiter;
  /** Budget of an integration that sets none; 0 = unlimited. */
  defaultRateLimitPerMinute?: number;
  /** token_last_used_at of the integration, told of every accepted request. */
  usage?: { used(projectId: number, integrationId: number): void };
  /** Paging (section 11): alert details show the escalation; the acknowledge link. Without it neither. */
  paging?: AlertPaging;
  /** The recorded `silenced_by` of alerts (issue 24), shown with them; without it none is. */
  silencedBy?(alertIds: number[]): Promise<Map<number, string[]>>;
}

export interface IngestRequest {
  projectId: number;
  integrationId: number;
  payloadJson: string;
  idempotencyKey?: string;
  receivedAt?: Date;
  waitMs?: number;
  /**
   * The project's tier as the gateway's endpoint look-up answered it: trusted on internal calls
   * (no principal) and then no GetProject is made; otherwise the tier is asked (`projects.byId`).
   */
  tier?: Tier;
}

export interface IngestResult {
  requestId: string;
  fingerprints: string[];
  outcomes: AlertOutcome[];
  processed: boolean;
  replayed: boolean;
  /** Where the integration's budget stands; unset when unlimited. When `throttled`, nothing was queued. */
  rateLimit?: RateLimitState;
}

/** A JSON object, else INVALID_ARGUMENT (PAYLOAD_INVALID) with `message`. */
export function parsePayload(json: string, message = "The payload must be a JSON object"): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw invalidArgument("PAYLOAD_INVALID", message);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalidArgument("PAYLOAD_INVALID", message);
  return value as Record<string, unknown>;
}

/** The alerts of a payload for an integration (one, or one per alert of an Alertmanager batch). */
export function alertsOf(
  payload: Record<string, unknown>,
  integration: IntegrationRuntime,
  tier: Tier,
  receivedAt: Date,
): NormalizedAlert[] {
  const opts = { tier, mapping: integration.mapping, integrationName: integration.name, receivedAt };
  return integration.type === "prometheus" ? normalizeAlertmanager(payload, opts) : [normalizeGeneric(payload, opts)];
}

/**
 * Enqueues one job per alert, all in one queue call (one group commit, or one round of Redis
 * commands per lane). The queue keeps array order within a lane, so alerts with the same
 * ordering key (fingerprint) are processed in payload order.
 */
export async function enqueueAll(
  deps: IngestDeps,
  requestId: string,
  integration: IntegrationRuntime,
  alerts: NormalizedAlert[],
  ctx: CallContext,
) {
  const log = { ingestRequestId: ctx.requestId };
  const jobs = alerts.map((alert, index) => ({
    jobId: alertJobId(requestId, index),
    requestId,
    projectId: integration.projectId,
    integrationId: integration.id,
    alert,
    log,
    ...(integration.autoResolveMinutes ? { autoResolveMinutes: integration.autoResolveMinutes } : {}),
  }));
  await deps.jobs.enqueueAlerts(jobs);
  return jobs;
}

/**
 * Waits for every job at once, until one deadline, then reads their outcomes from the request
 * log in one read (processing records each with its change); undefined as soon as one did not
 * finish (failed, or not done by the deadline), the other waits then dropped (not left to their
 * deadline). At once: one after another, each wait's first look (a Redis read with BullMQ)
 * waited for the jobs before it.
 */
export async function waitAll(deps: IngestDeps, jobs: ProcessAlertJob[], waitMs: number): Promise<AlertOutcome[] | undefined> {
  const timeoutMs = Math.min(waitMs, MAX_WAIT_MS);
  const others = new AbortController();
  const finished = await new Promise<boolean>((resolve, reject) => {
    let left = jobs.length;
    if (left === 0) resolve(true);
    for (const job of jobs)
      deps.jobs.waitFor(job, timeoutMs, others.signal).then((ok) => {
        if (!ok) resolve(false);
        else if (--left === 0) resolve(true);
      }, reject);
  }).finally(() => others.abort());
  if (!finished) return undefined;
  const recorded = await deps.stores.requests.jobOutcomes(jobs.map((job) => job.jobId));
  const outcomes = jobs.map((job) => recorded.get(job.jobId));
  return outcomes.every((outcome) => outcome !== undefined) ? outcomes : undefined;
}

/** Reserves the Idempotency-Key; a live earlier record gives its request id back. */
async function reserveKey(deps: IngestDeps, req: IngestRequest, requestId: string, fingerprints: string[]) {
  if (!req.idempotencyKey) return { requestId, replayed: false };
  const now = deps.clock.now();
  const { answer, existed } = await deps.stores.requests.reserve(
    req.integrationId,
    req.idempotencyKey,
    { requestId, fingerprints },
    new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    now,
  );
  return { requestId: answer.requestId, replayed: existed };
}

/**
 * IngestAlert: a webhook payload whose credential the gateway checked. Answers once every alert
 * is durably queued (or, with waitMs, processed). A replayed Idempotency-Key re-enqueues under
 * the first request id: the queue and the processed-job records make that a no-op when the
 * first request went through, and finish it when it did not.
 */
export async function ingest(deps: IngestDeps, req: IngestRequest, ctx: CallContext): Promise<IngestResult> {
  const payload = parsePayload(req.payloadJson);
  const integration = await deps.integrations.get(req.projectId, req.integrationId);
  if (!integration) throw notFound("Integration");
  if (!integration.active)
    throw new AppError("PERMISSION_DENIED", "INTEGRATION_INACTIVE", "The integration is currently inactive");
  const tier = req.tier && !ctx.principal ? req.tier : (await deps.projects.byId(req.projectId, ctx)).tier;
  const alerts = alertsOf(payload, integration, tier, req.receivedAt ?? deps.clock.now());
  const fingerprints = alerts.map((a) => a.fingerprint ?? "");
  const limit = integration.rateLimitPerMinute ?? deps.defaultRateLimitPerMinute ?? 0;
  const rateLimit = deps.limiter && limit > 0 ? await deps.limiter.take(integration.id, limit, isRecovery(alerts)) : undefined;
  if (rateLimit?.throttled)
    return { requestId: ctx.requestId, fingerprints, outcomes: [], processed: false, replayed: false, rateLimit };
  // Held here, once the request is known good and within its budget, before anything is written.
  await deps.backlog?.admit(alerts.length, ctx.deadlineMs);
  const { requestId, replayed } = await reserveKey(deps, req, ctx.requestId, fingerprints);
  // The key stays reserved when the enqueue fails: a queue that timed out may have stored the
  // jobs all the same (Redis killed after its AOF write, before its answer). The client's retry
  // then replays under the first request id, whose job ids the queue and the processed-job
  // records make run once, whatever the first attempt was answered.
  const jobs = await enqueueAll(deps, requestId, integration, alerts, ctx);
  deps.usage?.used(integration.projectId, integration.id);
  const outcomes = req.waitMs && req.waitMs > 0 ? await waitAll(deps, jobs, req.waitMs) : undefined;
  return {
    requestId,
    fingerprints,
    outcomes: outcomes ?? [],
    processed: outcomes !== undefined,
    replayed,
    ...(rateLimit ? { rateLimit } : {}),
  };
}
