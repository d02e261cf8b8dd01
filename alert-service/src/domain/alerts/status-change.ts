import { AppError, type Logger } from "@tocsin/core";
import { statusNote } from "./model.js";
import { type StatusChangeJob, type StatusChangeResult, statusChangeJobId } from "./ports.js";
import type { ProcessingDeps } from "./processing.js";
import { alertEvent, type Claim, statusEventKind } from "./reactions.js";

/** The activity key of a status change: one note per request. */
const noteKey = (job: StatusChangeJob) => `status:${Date.parse(job.at)}:${job.requestId}:${job.status}`;

/**
 * A user's status change, run as a job in the alert's lane: the lane is the alert's one writer,
 * so the change never interleaves with an event, a resolve or an auto-resolve of the alert, on
 * any store (FerretDB 1.x applies an update as an unlocked read-modify-write of the document).
 * The change, its note and the reactions' claims of its event (`alert.<status>`) are one write;
 * the claims' jobs are enqueued after it. Idempotent: a re-run finds the status set and writes
 * the note once (keyed by the request); it knows the change was its own when the alert's last
 * write is at the request's time (nothing else of the lane ran in between), and emits the same
 * event (same id) again.
 */
export async function statusChangeJob(deps: ProcessingDeps, job: StatusChangeJob, logger?: Logger): Promise<StatusChangeResult> {
  const { alerts } = deps.stores;
  const alert = await alerts.getById(job.alertId);
  if (!alert) return { changed: false };
  const at = new Date(job.at);
  const done = await deps.stores.batch(async (): Promise<{ changed: boolean; claims: Claim[] } | { conflict: true }> => {
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
    const mine = changed || alert.updatedAt.getTime() === at.getTime();
    if (!mine) return { changed, claims: [] };
    const event = alertEvent(statusEventKind(job.status), statusChangeJobId(job), {
      projectId: alert.projectId,
      alertId: alert.id,
      requestId: job.requestId,
      at,
      by: "status-change",
    });
    return { changed, claims: await deps.reactions.claim(event) };
  });
  if ("conflict" in done) return done;
  if (done.claims.length) await deps.reactions.enqueue(done.claims);
  logger?.debug({ iid: alert.iid, status: job.status, changed: done.changed }, "alert status changed");
  return { changed: done.changed };
}
