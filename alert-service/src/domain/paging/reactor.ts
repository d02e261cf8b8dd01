import type { AlertStore } from "../alerts/ports.js";
import { alertLaneKey } from "../alerts/ports.js";
import type { AlertEvent, Reactor } from "../alerts/reactions.js";
import type { PolicyPresence } from "./policy-presence.js";
import type { PageStartJob, PagingJobs } from "./ports.js";

/** The op of the change an event came from: its id is `<alertId>:<kind>:<op>`. */
const opOf = (event: AlertEvent) => event.id.slice(`${event.alertId}:${event.kind}:`.length);

/**
 * Paging as a reactor (PRODUCT.md section 11): an alert that becomes triggered (new, set back to
 * triggered, or unsilenced) gets one `page-start` job in its lane, keyed by the trigger, which
 * reads the project's policy and schedules the rules. The claim reads nothing but the alert (its
 * lane), and only when the emitting path did not pass it. A new alert (processing's trigger) of a
 * project that `presence` knows to have no policy gets none: it has no earlier trigger to stop.
 */
export function pagingReactor(
  alerts: Pick<AlertStore, "getById">,
  jobs: PagingJobs,
  presence?: Pick<PolicyPresence, "knownAbsent">,
): Reactor<PageStartJob> {
  return {
    name: "paging",
    async claim(event, context) {
      if (event.kind !== "alert.triggered" && event.kind !== "alert.unsilenced") return undefined;
      if (event.kind === "alert.triggered" && event.by === "processing" && presence?.knownAbsent(event.projectId))
        return undefined;
      const alert = context.alert ?? (await alerts.getById(event.alertId));
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
