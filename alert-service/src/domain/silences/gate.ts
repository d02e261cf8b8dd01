import type { Alert } from "../alerts/model.js";
import { alertLaneKey, type UnsilenceJob } from "../alerts/ports.js";
import type { AlertEvent, ReactionGate } from "../alerts/reactions.js";
import type { SilenceIndexCache } from "./active-index.js";
import { subjectOfAlert } from "./subject.js";

export interface SilenceGateDeps {
  index: SilenceIndexCache;
  /** The alert, when the emitting path did not hand it over. */
  alertOf(alertId: number): Promise<Alert | undefined>;
  /** Stores the alert's `silenced_by` (`[]` clears it): a store write inside the change's batch. */
  mark(alertId: number, silenceIds: string[], at: Date): Promise<void>;
  /** Schedules the durable timers of held firing events (after the change committed). */
  schedule(timers: UnsilenceJob[]): Promise<void>;
}

/**
 * An Alertmanager alert as stored (the one alert of a batch): its `labels` count for silences. A
 * generic payload is read by its mapped fields only (PRODUCT.md section 13: labels are Prometheus's).
 */
function isAlertmanagerAlert(payload: Record<string, unknown>): boolean {
  const labels = payload.labels;
  return !!labels && typeof labels === "object" && !Array.isArray(labels) && typeof payload.startsAt === "string";
}

/** Events whose alert is still firing: when held, a timer at the silence's end looks again. */
const FIRING = new Set<AlertEvent["kind"]>(["alert.triggered", "alert.unsilenced"]);

/**
 * Silences as the gate of Reactions (docs/architecture.md, "Reactions"; docs/silences.md): an event
 * of an alert that an active silence of its project covers is held (no e-mail, page, chat or
 * webhook) and the covering silences are stored as the alert's `silenced_by`; a held firing event
 * schedules a timer at the earliest end among them; `alert.unsilenced` passing clears `silenced_by`.
 * A project without unexpired silences costs one cached map lookup.
 */
export function createSilenceGate(deps: SilenceGateDeps): ReactionGate<UnsilenceJob> {
  return {
    async hold(event, context) {
      // A rare event that must see every silence written anywhere up to now: read them afresh.
      if (event.kind === "alert.unsilenced") deps.index.invalidate(event.projectId);
      const index = await deps.index.get(event.projectId);
      if (index.size === 0) {
        if (event.kind === "alert.unsilenced") await deps.mark(event.alertId, [], event.at);
        return undefined;
      }
      const alert = context.alert ?? (await deps.alertOf(event.alertId));
      if (!alert) return undefined;
      const subject = subjectOfAlert(alert, isAlertmanagerAlert(alert.payload));
      const { silencedBy, recheckAt } = index.verdict(subject, event.at);
      if (silencedBy.length === 0) {
        if (event.kind === "alert.unsilenced") await deps.mark(event.alertId, [], event.at);
        return undefined;
      }
      await deps.mark(event.alertId, silencedBy, event.at);
      if (!recheckAt || !FIRING.has(event.kind)) return { claim: undefined };
      const timer: UnsilenceJob = {
        requestId: event.requestId,
        projectId: event.projectId,
        alertId: event.alertId,
        at: recheckAt.toISOString(),
        laneKey: alertLaneKey(alert),
      };
      return { claim: timer };
    },
    enqueue: (timers) => deps.schedule(timers),
  };
}
