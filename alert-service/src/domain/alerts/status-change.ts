import { AppError, type Logger } from "@tocsin/core";
import { statusNote } from "./model.js";
import type { StatusChangeJob, StatusChangeResult } from "./ports.js";
import type { ProcessingDeps } from "./processing.js";

/** The activity key of a status change: one note per request. */
const noteKey = (job: StatusChangeJob) => `status:${Date.parse(job.at)}:${job.requestId}:${job.status}`;

/**
 * A user's status change, run as a job in the alert's lane: the lane is the alert's one writer,
 * so the change never interleaves with an event, a resolve or an auto-resolve of the alert, on
 * any store (FerretDB 1.x applies an update as an unlocked read-modify-write of the document).
 * Idempotent: a re-run finds the status set and writes the note once (keyed by the request).
 */
export async function statusChangeJob(deps: ProcessingDeps, job: StatusChangeJob, logger?: Logger): Promise<StatusChangeResult> {
  const { alerts } = deps.stores;
  const alert = await alerts.getById(job.alertId);
  if (!alert) return { changed: false };
  const at = new Date(job.at);
  let changed = false;
  if (alert.status !== job.status) {
    try {
      await alerts.setStatus(alert.id, job.status, job.status === "resolved" ? at : undefined, at);
      changed = true;
    } catch (err) {
      if (AppError.is(err) && err.reason === "OPEN_ALERT_EXISTS") return { conflict: true };
      throw err;
    }
  }
  await alerts.addActivity(alert.id, noteKey(job), statusNote(job.status), at);
  logger?.debug({ iid: alert.iid, status: job.status, changed }, "alert status changed");
  return { changed };
}
