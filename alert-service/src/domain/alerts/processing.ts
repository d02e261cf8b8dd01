import type { Logger } from "@tocsin/core";
import { AppError, type Clock } from "@tocsin/core";
import { type Alert, type AlertAction, type AlertOutcome, type AlertSettings, statusNote } from "./model.js";
import {
  type AlertJobs,
  type AlertsStores,
  type AutoResolveJob,
  alertLaneKey,
  type IncidentJob,
  type ProcessAlertJob,
} from "./ports.js";
import { type AlertEventKind, alertEvent, type Claim, type ReactionContext, type Reactions } from "./reactions.js";

export interface ProcessingDeps {
  stores: AlertsStores;
  jobs: Pick<AlertJobs, "enqueueIncident" | "enqueueFollowUps">;
  clock: Clock;
  /** Where every change of an alert is told (e-mail today; docs/architecture.md, "Reactions"). */
  reactions: Reactions;
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
async function applyAlert(deps: ProcessingDeps, job: ProcessAlertJob, firstRun: boolean, now: Date): Promise<Step> {
  const { alerts } = deps.stores;
  const { alert: input, jobId: op, projectId } = job;
  for (let race = 0; race < MAX_RACES; race++) {
    // A first run has changed nothing yet; a re-run or a lost race looks for its earlier change.
    const prior = firstRun && race === 0 ? undefined : await alerts.findByOp(projectId, op);
    if (prior) return { alert: prior.alert, action: actionFor(job, prior.created) };
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
 * The alert event of a step: a new triggered alert, or a recovery that resolved an open alert. A
 * repeat (`incremented`, also a re-fire of an acknowledged or ignored alert) and an alert created
 * already resolved are no events.
 */
function eventKindOf(action: AlertAction): AlertEventKind | undefined {
  if (action === "created") return "alert.triggered";
  if (action === "resolved") return "alert.resolved";
  return undefined;
}

/** How stale the alert settings a job acts on may be (a change through another replica). */
const SETTINGS_MAX_AGE_MS = 5_000;

/** The alert settings of each project, read at most once per batch (and only when a step needs them). */
type SettingsOf = (projectId: number) => Promise<AlertSettings>;

function settingsOnce(deps: ProcessingDeps): SettingsOf {
  const once = readsOnce<number>();
  return (projectId) => once(projectId, () => deps.stores.incidents.settings(projectId, SETTINGS_MAX_AGE_MS));
}

/**
 * Reads made at most once per batch, by key: the settings of each project, and the reactors'
 * reads shared by a batch's events (`ReactionContext.once`). A failed read fails every use of it
 * in the batch; the batch's re-run reads afresh.
 */
function readsOnce<K>(): <T>(key: K, load: () => Promise<T>) => Promise<T> {
  const read = new Map<K, Promise<unknown>>();
  return <T>(key: K, load: () => Promise<T>) => {
    let value = read.get(key) as Promise<T> | undefined;
    if (!value) {
      value = load();
      read.set(key, value);
    }
    return value;
  };
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

/** What a step leaves to do once its change is committed: queued jobs and the reactions' claims. */
interface FollowUps {
  incidents: IncidentJob[];
  autoResolves: Array<{ job: AutoResolveJob; delayMs: number }>;
  claims: Claim[];
}

/**
 * The store writes that follow a step (activity notes of a recovery, the reactions' claims of
 * its alert event, e.g. an e-mail's storm-control slot) and the jobs it asks for (auto-resolve,
 * incident), collected into `out`. Each is idempotent, so a re-run completes them. A new alert's
 * notes were written with it (`creationNotes`). The event (`alert.triggered` of a new alert,
 * `alert.resolved` of a recovery that resolved an open alert) goes to `Reactions`, keyed by the
 * job id; which reactor acts on it is theirs to decide (e-mail: PRODUCT.md section 9).
 */
async function followUp(
  deps: ProcessingDeps,
  job: ProcessAlertJob,
  step: Step,
  batch: { settingsOf: SettingsOf; once: NonNullable<ReactionContext["once"]> },
  at: Date,
  out: FollowUps,
) {
  const { settingsOf, once } = batch;
  const { alerts } = deps.stores;
  const { alert, action } = step;
  const source = job.alert.source;
  const op = job.jobId;
  // The alert's lane, for the jobs it asks for (built only for one: most new alerts ask for none).
  const lane = () => ({
    requestId: job.requestId,
    projectId: job.projectId,
    alertId: alert.id,
    laneKey: alertLaneKey(alert),
  });
  if ((action === "created" || action === "incremented") && job.autoResolveMinutes && alert.status === "triggered") {
    const minutes = job.autoResolveMinutes;
    const delayMs = minutes * (deps.autoResolveMinuteMs ?? 60_000);
    out.autoResolves.push({ job: { ...lane(), events: alert.events, minutes }, delayMs });
  }
  if (action === "created") {
    if ((await settingsOf(job.projectId)).createIncident) out.incidents.push({ kind: "open", ...lane() });
  } else if (action === "resolved") {
    await alerts.addActivity(alert.id, `${op}:recovery`, `logged a recovery alert from **${source}**`, at);
    await alerts.addActivity(alert.id, `${op}:status`, statusNote("resolved"), at);
    if ((await settingsOf(job.projectId)).autoCloseIncident) out.incidents.push({ kind: "close", ...lane() });
  }
  const kind = eventKindOf(action);
  if (kind) {
    const event = alertEvent(kind, op, {
      projectId: job.projectId,
      alertId: alert.id,
      requestId: job.requestId,
      at,
      by: "processing",
    });
    const claims = await deps.reactions.claim(event, { settings: () => settingsOf(job.projectId), alert, once });
    if (claims.length) out.claims.push(...claims);
  }
}

function toOutcome(alert: Alert, action: AlertAction): AlertOutcome {
  return { iid: alert.iid, title: alert.title, status: alert.status, events: alert.events, action };
}

/** What a batch of process-alert jobs did: the outcomes of the jobs that completed, in order, then the error of the next one. */
export interface BatchResult {
  outcomes: AlertOutcome[];
  error?: unknown;
}

/**
 * Process-alert jobs of one lane, in order, in three commits whatever their number (on a store
 * that groups writes, see `AlertsStores.batch`): (1) each job's alert change, its notes and the
 * reactions' claims of its event; (2) the jobs they ask for, enqueued together; (3) the jobs' outcomes. A crash
 * between them leaves changes without outcomes: the re-run finds each change by its job id and
 * enqueues the same (keyed) jobs again. A job that asks for nothing (the common case of a storm:
 * no incident, no auto-resolve, no claim) records its outcome in (1), with its change. A job that fails stops the batch: the jobs before it
 * complete, it and the ones after it are left to the queue (retry, in order).
 */
export async function processAlertJobs(deps: ProcessingDeps, jobs: ProcessAlertJob[], logger?: Logger): Promise<BatchResult> {
  const reads = { settingsOf: settingsOnce(deps), once: readsOnce<string>() };
  const done: Array<{ job: ProcessAlertJob; outcome: AlertOutcome; recorded: boolean }> = [];
  const todo: FollowUps = { incidents: [], autoResolves: [], claims: [] };
  let error: unknown;
  await deps.stores.batch(async () => {
    for (const job of jobs) {
      try {
        // One reading of the clock per job: its change, notes, event and outcome share the time.
        const now = deps.clock.now();
        const start = await deps.stores.requests.startJob(job.jobId, now);
        if (start.outcome) {
          done.push({ job, outcome: start.outcome, recorded: true });
          continue;
        }
        const step = await applyAlert(deps, job, start.firstRun, now);
        const mine: FollowUps = { incidents: [], autoResolves: [], claims: [] };
        await followUp(deps, job, step, reads, now, mine);
        const outcome = toOutcome(step.alert, step.action);
        if (mine.incidents.length + mine.autoResolves.length + mine.claims.length === 0) {
          // Nothing left to enqueue: the outcome commits with the change (one commit, not two).
          await deps.stores.requests.recordJob(job.jobId, outcome, now);
          done.push({ job, outcome, recorded: true });
          continue;
        }
        todo.incidents.push(...mine.incidents);
        todo.autoResolves.push(...mine.autoResolves);
        todo.claims.push(...mine.claims);
        done.push({ job, outcome, recorded: false });
      } catch (err) {
        error = err;
        break;
      }
    }
  });
  try {
    if (todo.incidents.length || todo.autoResolves.length) await deps.jobs.enqueueFollowUps(todo);
    if (todo.claims.length) await deps.reactions.enqueue(todo.claims);
    const unrecorded = done.filter((d) => !d.recorded);
    if (unrecorded.length) {
      const at = deps.clock.now();
      await deps.stores.batch(async () => {
        for (const { job, outcome } of unrecorded) await deps.stores.requests.recordJob(job.jobId, outcome, at);
      });
    }
  } catch (err) {
    // Nothing is recorded as done: the whole batch runs again (the changes are found, not repeated).
    return { outcomes: [], error: err };
  }
  for (const { job, outcome } of done)
    logger?.debug({ jobId: job.jobId, iid: outcome.iid, action: outcome.action }, "alert processed");
  return { outcomes: done.map((d) => d.outcome), ...(error === undefined ? {} : { error }) };
}

/** One process-alert job: returns what happened to the alert. */
export async function processAlertJob(deps: ProcessingDeps, job: ProcessAlertJob, logger?: Logger): Promise<AlertOutcome> {
  const { outcomes, error } = await processAlertJobs(deps, [job], logger);
  if (outcomes[0]) return outcomes[0];
  throw error;
}
