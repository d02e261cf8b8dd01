import type { Clock, Logger } from "@tocsin/core";
import type { AlertStore, IncidentStore } from "../alerts/ports.js";
import type { ProjectAccess } from "../ports.js";
import { type Message, messageFor, summaryFor } from "./messages.js";
import type {
  AttemptResult,
  DeliveryJob,
  DeliveryJobs,
  DeliveryLog,
  DeliveryRecord,
  DestinationStore,
  Sender,
  SendSlots,
} from "./ports.js";
import { signingSecrets } from "./rules.js";
import type { DestinationRecord } from "./types.js";

/** Signs a body for Standard Webhooks: the `webhook-signature` value (`v1,<base64>`). */
export type Sign = (secret: string, id: string, at: Date, body: string) => string;

interface DeliverySettings {
  /** Base of console links, without a trailing slash. */
  externalUrl: string;
  storm: { windowMs: number; limit: number };
  /** At most one message per destination this often. */
  minIntervalMs: number;
  /** Retries stop once the first attempt is this old (≥ 24 h). */
  retryForMs: number;
}

export interface DeliveryDeps {
  destinations: DestinationStore;
  log: DeliveryLog;
  alerts: Pick<AlertStore, "getById">;
  incidents: Pick<IncidentStore, "getByAlert">;
  projects: ProjectAccess;
  sender: Sender;
  sign: Sign;
  slots: SendSlots;
  jobs: DeliveryJobs;
  clock: Clock;
  settings: DeliverySettings;
}

/** Thrown to have the queue run the job again later (a retryable answer, or a Retry-After not yet over). */
export class RetryLaterError extends Error {
  override readonly name = "RetryLaterError";
}

/** How an answer is judged (PRODUCT.md section 12). */
export function verdictOf(result: AttemptResult): "delivered" | "retry" | "failed" | "gone" {
  const { status, failure } = result;
  if (status === null) return failure === "refused" ? "failed" : "retry";
  if (status >= 200 && status < 300) return "delivered";
  if (status === 410) return "gone";
  if (status === 408 || status === 429 || status >= 500) return "retry";
  // 3xx (redirects are never followed) and every other 4xx.
  return "failed";
}

function errorOf(result: AttemptResult): string | null {
  if (result.error) return result.error;
  if (result.status === null) return "no answer";
  if (result.status >= 300 && result.status < 400) return `redirect (${result.status}) not followed`;
  if (result.status >= 400) return `HTTP ${result.status}`;
  return null;
}

/** The window a delivery falls in: aligned to multiples of its length. */
function windowOf(at: Date, windowMs: number): { from: Date; to: Date } {
  const start = Math.floor(at.getTime() / windowMs) * windowMs;
  return { from: new Date(start), to: new Date(start + windowMs) };
}

const summaryKey = (destinationId: number, windowStart: number) => `summary:${destinationId}:${windowStart}`;

/** Runs delivery jobs: one attempt per run, its outcome in the delivery log. */
export function createDelivery(deps: DeliveryDeps) {
  /** Waits for the destination's next send slot, `minIntervalMs` after its last send (any replica's). */
  const pace = async (destinationId: number) => {
    const { minIntervalMs } = deps.settings;
    if (minIntervalMs <= 0) return;
    const waitMs = await deps.slots.reserve(destinationId, minIntervalMs);
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
  };
  const { storm } = deps.settings;

  async function projectOf(job: DeliveryJob) {
    const ref = await deps.projects.byId(job.projectId, { requestId: job.requestId });
    return { id: ref.id, fullPath: ref.fullPath, webUrl: `${deps.settings.externalUrl}/${ref.fullPath}` };
  }

  async function messageOf(job: DeliveryJob, destination: DestinationRecord): Promise<Message | undefined> {
    const project = await projectOf(job);
    if (job.eventType === "summary") {
      const windowStart = Number(job.eventId.split(":")[2]);
      const window = windowOf(new Date(windowStart), storm.windowMs);
      const count = await deps.log.summarized(destination.id, window.from, window.to);
      if (count === 0) return undefined;
      const listUrl = `${project.webUrl}/-/alert_management`;
      return summaryFor(destination, { project, count, windowMinutes: Math.round(storm.windowMs / 60_000), listUrl });
    }
    const alert = await deps.alerts.getById(job.alertId);
    if (!alert) return undefined;
    const incident = job.eventType.startsWith("incident.") ? await deps.incidents.getByAlert(alert.id) : undefined;
    const alertUrl = `${project.webUrl}/-/alert_management/${alert.iid}/details`;
    return messageFor(destination, { eventType: job.eventType, project, alert, incident, alertUrl });
  }

  /** Past the storm limit of its window: folded into the window's summary (enqueued once, at the window's end). */
  async function folded(delivery: DeliveryRecord): Promise<boolean> {
    if (delivery.eventType === "summary") return false;
    const window = windowOf(delivery.createdAt, storm.windowMs);
    const rank = await deps.log.rank(delivery.destinationId, window.from, window.to, delivery.id);
    if (rank <= storm.limit) return false;
    const key = summaryKey(delivery.destinationId, window.from.getTime());
    const summary = { ...pick(delivery), requestId: `storm-${key}`, eventType: "summary", eventId: key, alertId: 0, key };
    await deps.jobs.enqueueLater(summary, Math.max(0, window.to.getTime() - deps.clock.now().getTime()));
    return true;
  }

  function headersOf(
    destination: DestinationRecord,
    delivery: DeliveryRecord,
    body: string,
    at: Date,
    own: Record<string, string>,
  ) {
    const headers: Record<string, string> = { ...own, "Idempotency-Key": delivery.eventId };
    if (destination.kind === "hook" && destination.signing && destination.signingSecret) {
      headers["webhook-id"] = delivery.eventId;
      headers["webhook-timestamp"] = String(Math.floor(at.getTime() / 1000));
      headers["webhook-signature"] = signingSecrets(destination, at)
        .map((secret) => deps.sign(secret, delivery.eventId, at, body))
        .join(" ");
    }
    return headers;
  }

  async function run(job: DeliveryJob, log: Logger): Promise<void> {
    const now = deps.clock.now();
    const delivery = await deps.log.open({ ...pick(job), createdAt: now });
    if (delivery.status !== "retrying") return; // delivered, failed or folded already: a re-run changes nothing
    const end = (outcome: Partial<DeliveryRecord> & Pick<DeliveryRecord, "status">) =>
      deps.log.record(delivery.id, {
        attempts: delivery.attempts,
        responseStatus: delivery.responseStatus,
        durationMs: delivery.durationMs,
        error: delivery.error,
        notBefore: null,
        ...outcome,
        at: deps.clock.now(),
      });
    const destination = await deps.destinations.get(job.projectId, job.destinationId);
    if (!destination) return end({ status: "failed", error: "the destination was deleted" });
    if (destination.disabled) return end({ status: "failed", error: "the destination is disabled (410 Gone)" });
    if (delivery.attempts === 0 && (await folded(delivery))) return end({ status: "summarized" });
    if (delivery.notBefore && delivery.notBefore > now) throw new RetryLaterError("waiting for the receiver's Retry-After");
    const message = await messageOf(job, destination);
    if (!message) return end({ status: "failed", error: "nothing to send (the alert is gone)" });
    await pace(destination.id);
    const at = deps.clock.now();
    const body = JSON.stringify(message.body);
    const result = await deps.sender.post({
      url: destination.url,
      body,
      headers: headersOf(destination, delivery, body, at, message.headers),
      verifyTls: destination.enableSslVerification,
      slack: destination.kind === "slack",
    });
    const verdict = verdictOf(result);
    const attempt = {
      attempts: delivery.attempts + 1,
      responseStatus: result.status,
      durationMs: result.durationMs,
      error: verdict === "delivered" ? null : errorOf(result),
    };
    log.info({ destinationId: destination.id, status: result.status, verdict, attempt: attempt.attempts }, "delivery attempt");
    if (verdict === "delivered") return end({ ...attempt, status: "delivered" });
    if (verdict === "gone") {
      await deps.destinations.update(destination.projectId, destination.id, { disabled: true, at });
      return end({ ...attempt, status: "failed" });
    }
    const expired = at.getTime() - delivery.createdAt.getTime() >= deps.settings.retryForMs;
    if (verdict === "failed" || expired) return end({ ...attempt, status: "failed" });
    const notBefore = result.retryAfterMs ? new Date(at.getTime() + result.retryAfterMs) : null;
    await end({ ...attempt, status: "retrying", notBefore });
    throw new RetryLaterError(attempt.error ?? "retry");
  }

  /** Sends one sample message now (the integration's Test button): no queue, no retry, no log. */
  async function test(destination: DestinationRecord, facts: { project: { id: number; fullPath: string } }) {
    const webUrl = `${deps.settings.externalUrl}/${facts.project.fullPath}`;
    const at = deps.clock.now();
    const alert = sampleAlert(facts.project.id, at);
    const message = messageFor(destination, {
      eventType: "test",
      project: { ...facts.project, webUrl },
      alert,
      incident: undefined,
      alertUrl: `${webUrl}/-/alert_management`,
    });
    return deps.sender.post({
      url: destination.url,
      body: JSON.stringify(message.body),
      headers: message.headers,
      verifyTls: destination.enableSslVerification,
      slack: destination.kind === "slack",
    });
  }

  return { run, test };
}

function pick(
  d: Pick<DeliveryJob, "key" | "projectId" | "destinationId" | "eventType" | "eventId" | "alertId"> & { requestId?: string },
) {
  return {
    key: d.key,
    projectId: d.projectId,
    destinationId: d.destinationId,
    eventType: d.eventType,
    eventId: d.eventId,
    alertId: d.alertId,
    requestId: d.requestId ?? "",
  };
}

function sampleAlert(projectId: number, at: Date) {
  return {
    id: 0,
    projectId,
    iid: 0,
    integrationId: 0,
    title: "Test message from Tocsin",
    description: "This is a test of the integration's settings.",
    severity: "info" as const,
    status: "triggered" as const,
    service: "",
    monitoringTool: "Tocsin",
    hosts: [],
    events: 1,
    fingerprint: undefined,
    startedAt: at,
    endedAt: undefined,
    environmentName: "",
    incidentIid: 0,
    payload: {},
    createdAt: at,
    updatedAt: at,
  };
}

export type Delivery = ReturnType<typeof createDelivery>;
