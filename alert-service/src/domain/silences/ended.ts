import type { Alert } from "../alerts/model.js";
import { alertLaneKey, type UnsilenceJob } from "../alerts/ports.js";
import type { Silence } from "./model.js";
import type { SilenceStore } from "./ports.js";

export interface SilenceEndedDeps {
  store: Pick<SilenceStore, "alertsHeldBy">;
  alertOf(alertId: number): Promise<Alert | undefined>;
  scheduleUnsilence(jobs: UnsilenceJob[]): Promise<void>;
}

/**
 * A silence expired before its end (DELETE, or replaced by Alertmanager's update rule): the
 * still-triggered alerts it held get their unsilence job now rather than at the old end. The job
 * runs in the alert's lane and asks the gate again with the project's silences read afresh, so an
 * alert another silence (the replacement) still covers stays quiet.
 */
export async function unsilenceHeldAlerts(deps: SilenceEndedDeps, silence: Silence, at: Date): Promise<void> {
  const jobs: UnsilenceJob[] = [];
  for (const alertId of await deps.store.alertsHeldBy(silence.id)) {
    const alert = await deps.alertOf(alertId);
    if (alert?.status !== "triggered" || alert.projectId !== silence.projectId) continue;
    jobs.push({
      requestId: `silence-${silence.id}`,
      projectId: alert.projectId,
      alertId,
      at: at.toISOString(),
      laneKey: alertLaneKey(alert),
    });
  }
  if (jobs.length) await deps.scheduleUnsilence(jobs);
}
