import type { AlertStore } from "../alerts/ports.js";
import { alertLaneKey } from "../alerts/ports.js";
import type { AlertEvent, Reactor } from "../alerts/reactions.js";
import type { PageStartJob, PagingJobs } from "./ports.js";

/** The op of the change an event came from: its id is `<alertId>:<kind>:<op>`. */
const opOf = (event: AlertEvent) => event.id.slice(`${event.alertId}:${event.kind}:`.length);

/**
 * Paging as a reactor (PRODUCT.md section 11): an alert that becomes triggered (new, set back to
 * triggered, or unsilenced) gets one `page-start` job in its lane, keyed by the trigger, which
 * reads the project's policy and schedules the rules. The claim only reads the alert (its lane).
 */
export function pagingReactor(alerts: Pick<AlertStore, "getById">, jobs: PagingJobs): Reactor<PageStartJob> {
  return {
    name: "paging",
    async claim(event) {
      if (event.kind !== "alert.triggered" && event.kind !== "alert.unsilenced") return undefined;
      const alert = await alerts.getById(event.alertId);
      if (!alert) return undefined;
      return {
        requestId: event.requestId,
        projectId: event.projectId,
        alertId: event.alertId,
        laneKey: alertLaneKey(alert),
        triggerOp: opOf(event),
        triggeredAt: event.at.toISOString(),
      };
    },
    enqueue: (claims) => jobs.enqueueStarts(claims),
  };
}
