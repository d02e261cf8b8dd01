import type { CallContext, Clock } from "@tocsin/core";
import { notFound } from "@tocsin/core";
import type { Delivery } from "./delivery.js";
import type { Destinations } from "./destinations.js";
import type { AttemptResult, DeliveryJobs, DeliveryLog, DeliveryRecord } from "./ports.js";
import type { ChatKind, DestinationRecord } from "./types.js";

/** A hook by id, or a chat integration by kind. */
export type DeliveryTarget = { hookId: number } | { kind: ChatKind };

/** How long the delivery log keeps deliveries (PRODUCT.md section 12), and how many one page shows. */
export const DELIVERY_LOG_MS = 7 * 24 * 3_600_000;
const PAGE = 100;

export interface DeliveryLogUseCases {
  /** The integration's Test button: one sample message now, the receiver's answer. */
  test(idOrPath: string, kind: ChatKind, ctx: CallContext): Promise<AttemptResult>;
  list(idOrPath: string, target: DeliveryTarget, ctx: CallContext): Promise<DeliveryRecord[]>;
  /** Queues a logged delivery's event again, as a new delivery (answered as opened). */
  resend(idOrPath: string, target: DeliveryTarget, deliveryId: number, ctx: CallContext): Promise<DeliveryRecord>;
}

export function createDeliveryLogUseCases(deps: {
  destinations: Destinations;
  log: DeliveryLog;
  jobs: DeliveryJobs;
  delivery: Pick<Delivery, "test">;
  clock: Clock;
}): DeliveryLogUseCases {
  const target = (idOrPath: string, t: DeliveryTarget, ctx: CallContext): Promise<DestinationRecord> =>
    "hookId" in t ? deps.destinations.getHook(idOrPath, t.hookId, ctx) : deps.destinations.getChat(idOrPath, t.kind, ctx);
  return {
    async test(idOrPath, kind, ctx) {
      const project = await deps.destinations.project(idOrPath, ctx);
      const destination = await deps.destinations.getChat(idOrPath, kind, ctx);
      return deps.delivery.test(destination, { project: { id: project.id, fullPath: project.fullPath } });
    },
    async list(idOrPath, t, ctx) {
      const destination = await target(idOrPath, t, ctx);
      return deps.log.list(destination.id, new Date(deps.clock.now().getTime() - DELIVERY_LOG_MS), PAGE);
    },
    async resend(idOrPath, t, deliveryId, ctx) {
      const destination = await target(idOrPath, t, ctx);
      const original = await deps.log.get(destination.projectId, deliveryId);
      if (original?.destinationId !== destination.id) throw notFound("Event");
      const now = deps.clock.now();
      const key = `resend:${original.id}:${now.getTime()}`;
      const job = {
        requestId: ctx.requestId,
        projectId: original.projectId,
        destinationId: destination.id,
        eventType: original.eventType,
        eventId: original.eventId,
        alertId: original.alertId,
        key,
      };
      const opened = await deps.log.open({ ...job, createdAt: now });
      await deps.jobs.enqueue([job]);
      return opened;
    },
  };
}
