import type { AlertEvent, AlertEventKind, ReactionContext, Reactor } from "../alerts/reactions.js";
import type { DeliveryJob, DeliveryJobs, DestinationStore } from "./ports.js";
import type { DestinationRecord } from "./types.js";

/** The events chat and hooks are told of (PRODUCT.md section 12), and which switch of a destination turns each on. */
const SWITCH: Partial<Record<AlertEventKind, "alertEvents" | "incidentEvents">> = {
  "alert.triggered": "alertEvents",
  "alert.acknowledged": "alertEvents",
  "alert.resolved": "alertEvents",
  "alert.paged": "alertEvents",
  "incident.opened": "incidentEvents",
  "incident.closed": "incidentEvents",
};

const wants = (d: DestinationRecord, kind: AlertEventKind) => {
  const on = SWITCH[kind];
  return on !== undefined && !d.disabled && d[on];
};

/** `deliver:<eventId>:<destination>`: a re-run of the change that made the event enqueues the same jobs. */
const deliverKey = (eventId: string, destinationId: number) => `deliver:${eventId}:${destinationId}`;

/**
 * Chat and webhooks as a reactor (docs/architecture.md, "Reactions"): for an event of a kind
 * they handle, one delivery job per destination of the project that has the event's switch on
 * and is not disabled. The claim only reads (the destinations); the jobs are enqueued after the
 * change committed, keyed by event and destination, so a re-run enqueues nothing new.
 */
export function channelsReactor(deps: {
  destinations: Pick<DestinationStore, "list">;
  jobs: DeliveryJobs;
}): Reactor<DeliveryJob[]> {
  return {
    name: "channels",
    async claim(event: AlertEvent, context: ReactionContext) {
      if (!SWITCH[event.kind]) return undefined;
      // A batch's events of one project share one read of its destinations.
      const read = () => deps.destinations.list(event.projectId);
      const all = await (context.once ? context.once(`channels:${event.projectId}`, read) : read());
      const targets = all.filter((d) => wants(d, event.kind));
      if (!targets.length) return undefined;
      return targets.map((d) => ({
        requestId: event.requestId,
        projectId: event.projectId,
        destinationId: d.id,
        eventType: event.kind,
        eventId: event.id,
        alertId: event.alertId,
        key: deliverKey(event.id, d.id),
      }));
    },
    enqueue: (claims) => deps.jobs.enqueue(claims.flat()),
  };
}
