import type { Logger } from "@tocsin/core";
import { AppError, type Clock } from "@tocsin/core";
import type { Notifier } from "../mail/pipeline.js";
import type { Transition } from "../mail/ports.js";
import { type Alert, type AlertAction, type AlertOutcome, type AlertSettings, statusNote } from "./model.js";
import { type AlertJobs, type AlertsStores, alertLaneKey, type ProcessAlertJob } from "./ports.js";

export interface ProcessingDeps {
  stores: AlertsStores;
  jobs: Pick<AlertJobs, "enqueueIncident" | "enqueueAutoResolve">;
  clock: Clock;
  notifications?: Notifier;
  /** Length of one auto-resolve "minute" in ms (60 000; shorter only in tests). */
  autoResolveMinuteMs?: number;
}

interface Step {
  alert: Alert;
  action: AlertAction;
}

/** How many times a step re-reads after losing a race before giving up (the queue retries). */
const MAX_RACES = 5;

function isReason(err: unknown, reason: string): boolean {
  return AppError.is(err) && err.reason === reason;
}

function actionFor(job: ProcessAlertJob, created: boolean): AlertAction {
  const recovery = job.alert.endedAt !== undefined;
  if (created) return recovery ? "created_resolved" : "created";
  return recovery ? "resolved" : "incremented";
}

/**
 * Applies one alert (PRODUCT.md section 6). Idempotent: every change is written together with
 * the job id (`opKey`), so a re-run finds its earlier change instead of repeating it.
 */
async function applyAlert(deps: ProcessingDeps, job: ProcessAlertJob, firstRun: boolean): Promise<Step> {
  const { alerts } = deps.stores;
  const { alert: input, jobId: op, projectId } = job;
  for (let race = 0; race < MAX_RACES; race++) {
    // A first run has changed nothing yet; a re-run or a lost race looks for its earlier change.
    const prior = firstRun && race === 0 ? undefined : await alerts.findByOp(projectId, op);
    if (prior) return { alert: prior.alert, action: actionFor(job, prior.created) };
    const now = deps.clock.now();
    if (input.fingerprint) {
      const open = await alerts.findOpen(projectId, input.fingerprint);
      if (open) {
        const changed = input.endedAt
          ? await alerts.resolve(open.id, new Date(input.endedAt), op, now)
          : await alerts.registerEvent(open.id, op, now);
        if (changed) return { alert: changed, action: actionFor(job, false) };
        continue; // resolved meanwhile: look again
      }
    }
    try {
      const status = input.endedAt ? "resolved" : "triggered";
      const created = await alerts.create({
        projectId,
        integrationId: job.integrationId,
        alert: input,
        status,
        opKey: op,
        at: now,
        notes: creationNotes(job, status),
      });
      return { alert: created, action: actionFor(job, true) };
    } catch (err) {
      // Another writer opened an alert for this fingerprint first: find it and add to it.
      if (isReason(err, "OPEN_ALERT_EXISTS") || isReason(err, "OP_APPLIED")) continue;
      throw err;
    }
  }
  throw new AppError("ABORTED", "CONTENTION", "alert changed concurrently too often");
}

/**
 * E-mail (PRODUCT.md section 9): a new triggered alert and a recovery that resolves an open alert,
 * when the project's `send_email` is on. Repeats (`incremented`), re-fires of acknowledged or
 * ignored alerts (also `incremented`) and alerts created already resolved send nothing. The
 * notify job is keyed by (alert, transition): a re-run of this step adds nothing new.
 */
function transitionOf(action: AlertAction): Transition | undefined {
  if (action === "created") return "triggered";
  if (action === "resolved") return "resolved";
  return undefined;
}

/** How stale the alert settings a job acts on may be (a change through another replica). */
const SETTINGS_MAX_AGE_MS = 5_000;

/** The project's alert settings, read at most once per job (and only when a step needs them). */
type SettingsOnce = () => Promise<AlertSettings>;

function settingsOnce(deps: ProcessingDeps, projectId: number): SettingsOnce {
  let read: Promise<AlertSettings> | undefined;
  return () => {
    read ??= deps.stores.incidents.settings(projectId, SETTINGS_MAX_AGE_MS);
    return read;
  };
}

async function notifyStep(deps: ProcessingDeps, job: ProcessAlertJob, step: Step, settings: SettingsOnce): Promise<void> {
  const transition = transitionOf(step.action);
  if (!transition || !deps.notifications) return;
  if (!(await settings()).sendEmail) return;
  await deps.notifications.alertChanged({
    requestId: job.requestId,
    projectId: job.projectId,
    alertId: step.alert.id,
    transition,
  });
}

/** The activity notes of a new alert, written with it (one write, and never missing after a crash). */
function creationNotes(job: ProcessAlertJob, status: "triggered" | "resolved") {
  const op = job.jobId;
  const source = job.alert.source;
  if (status === "triggered") return [{ key: `${op}:alert`, note: `logged an alert from **${source}**` }];
  return [
    { key: `${op}:recovery`, note: `logged a recovery alert from **${source}**` },
    { key: `${op}:status`, note: statusNote("resolved") },
  ];
}

/**
 * Activity notes and incident jobs of a step; each is idempotent, so a re-run completes them.
 * A new alert's notes were written with it (`creationNotes`).
 */
async function followUp(deps: ProcessingDeps, job: ProcessAlertJob, step: Step, settings: SettingsOnce): Promise<void> {
  const { alerts } = deps.stores;
  const at = deps.clock.now();
  const { alert, action } = step;
  const source = job.alert.source;
  const op = job.jobId;
  const lane = {
    requestId: job.requestId,
    projectId: job.projectId,
    alertId: alert.id,
    laneKey: alertLaneKey(alert),
  };
  if ((action === "created" || action === "incremented") && job.autoResolveMinutes && alert.status === "triggered") {
    const minutes = job.autoResolveMinutes;
    const delayMs = minutes * (deps.autoResolveMinuteMs ?? 60_000);
    await deps.jobs.enqueueAutoResolve({ ...lane, events: alert.events, minutes }, delayMs);
  }
  if (action === "created") {
    if ((await settings()).createIncident) await deps.jobs.enqueueIncident({ kind: "open", ...lane });
  } else if (action === "resolved") {
    await alerts.addActivity(alert.id, `${op}:recovery`, `logged a recovery alert from **${source}**`, at);
    await alerts.addActivity(alert.id, `${op}:status`, statusNote("resolved"), at);
    if ((await settings()).autoCloseIncident) await deps.jobs.enqueueIncident({ kind: "close", ...lane });
  }
}

function toOutcome(alert: Alert, action: AlertAction): AlertOutcome {
  return { iid: alert.iid, title: alert.title, status: alert.status, events: alert.events, action };
}

/** The process-alert job: returns what happened to the alert. */
export async function processAlertJob(deps: ProcessingDeps, job: ProcessAlertJob, logger?: Logger): Promise<AlertOutcome> {
  const start = await deps.stores.requests.startJob(job.jobId, deps.clock.now());
  if (start.outcome) return start.outcome;
  const step = await applyAlert(deps, job, start.firstRun);
  const settings = settingsOnce(deps, job.projectId);
  await followUp(deps, job, step, settings);
  await notifyStep(deps, job, step, settings);
  const outcome = toOutcome(step.alert, step.action);
  await deps.stores.requests.recordJob(job.jobId, outcome, deps.clock.now());
  logger?.debug({ iid: outcome.iid, action: outcome.action }, "alert processed");
  return outcome;
}
