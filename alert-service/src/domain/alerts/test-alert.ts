import { AppError, type CallContext, invalidArgument, notFound } from "@tocsin/core";
import { ACCESS } from "../types.js";
import { alertsOf, enqueueAll, type IngestDeps, MAX_WAIT_MS, parsePayload, waitAll } from "./ingest.js";
import type { ActivityEntry, Alert, NormalizedAlert } from "./model.js";

const TEST_ALERT_SENT = "The test alert should now be visible in your alerts list.";
const TEST_ALERT_INACTIVE = "The integration is currently inactive. Enable the integration to send the test alert.";
const TEST_ALERT_INVALID = "Integration payload is invalid.";
const DRY_RUN_MESSAGE = "Dry run: nothing was changed.";

export interface TestAlertRequest {
  projectIdOrPath: string;
  integrationId: number;
  payloadJson: string;
  dryRun: boolean;
}

export interface DryRun {
  normalizedAlert: NormalizedAlert;
  fingerprint: string;
  action: "create" | "increment" | "resolve" | "create_resolved";
  existingAlertIid: number;
  wouldCreateIncident: boolean;
  wouldCloseIncident: boolean;
}

export interface TestAlertResult {
  message: string;
  alert?: Alert & { activity: ActivityEntry[] };
  dryRun?: DryRun;
}

/** What processing would do with the alert, read-only. */
async function dryRun(deps: IngestDeps, projectId: number, alert: NormalizedAlert): Promise<DryRun> {
  const settings = await deps.stores.incidents.settings(projectId);
  const open = alert.fingerprint ? await deps.stores.alerts.findOpen(projectId, alert.fingerprint) : undefined;
  const recovery = alert.endedAt !== undefined;
  const incident = open ? await deps.stores.incidents.getByAlert(open.id) : undefined;
  return {
    normalizedAlert: alert,
    fingerprint: alert.fingerprint ?? "",
    action: open ? (recovery ? "resolve" : "increment") : recovery ? "create_resolved" : "create",
    existingAlertIid: open?.iid ?? 0,
    wouldCreateIncident: !open && !recovery && settings.createIncident,
    wouldCloseIncident: !!open && recovery && settings.autoCloseIncident && incident?.status === "open",
  };
}

/**
 * SendTestAlert (Developer+): the payload goes through the integration like a webhook post and
 * is processed before the answer; with `dryRun`, nothing is written.
 */
export async function sendTestAlert(deps: IngestDeps, req: TestAlertRequest, ctx: CallContext): Promise<TestAlertResult> {
  const project = await deps.projects.require(req.projectIdOrPath, ACCESS.developer, ctx);
  const integration = await deps.integrations.get(project.id, req.integrationId);
  if (!integration) throw notFound("Integration");
  if (!integration.active) throw new AppError("PERMISSION_DENIED", "INTEGRATION_INACTIVE", TEST_ALERT_INACTIVE);
  const payload = parsePayload(req.payloadJson, TEST_ALERT_INVALID);
  let alerts: NormalizedAlert[];
  try {
    alerts = alertsOf(payload, integration, project.tier, deps.clock.now());
  } catch {
    throw invalidArgument("PAYLOAD_INVALID", TEST_ALERT_INVALID);
  }
  const first = alerts[0];
  if (!first) throw invalidArgument("PAYLOAD_INVALID", TEST_ALERT_INVALID);
  if (req.dryRun) return { message: DRY_RUN_MESSAGE, dryRun: await dryRun(deps, project.id, first) };
  const jobs = await enqueueAll(deps, ctx.requestId, integration, alerts, ctx);
  const outcomes = await waitAll(deps, jobs, MAX_WAIT_MS);
  const outcome = outcomes?.[0];
  if (!outcome)
    throw new AppError("DEADLINE_EXCEEDED", "TEST_ALERT_PENDING", "The test alert is queued but not processed yet", {
      retryAfterSeconds: 5,
    });
  const alert = await deps.stores.alerts.get(project.id, outcome.iid);
  if (!alert) throw notFound("Alert");
  return { message: TEST_ALERT_SENT, alert: { ...alert, activity: await deps.stores.alerts.activity(alert.id) } };
}
