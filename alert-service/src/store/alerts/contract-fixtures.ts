import type { NormalizedAlert } from "../../domain/alerts/model.js";
import type { NewAlert } from "../../domain/alerts/ports.js";

/** What the alerts stores contract's cases share: one clock, fresh project ids and op keys, and a new alert. */
export const at = new Date("2026-11-21T10:00:00.000Z");
let projectSeq = 1000 + Math.floor(Math.random() * 1000) * 1000;
export const nextProject = () => ++projectSeq;
let opSeq = 0;
export const op = () => `op-${Date.now()}-${++opSeq}`;

/** A new alert of `projectId` (a fresh op key each time); also the batch-writes tests'. */
export function alertInput(
  projectId: number,
  fields: Partial<NormalizedAlert> = {},
  status: NewAlert["status"] = "triggered",
): NewAlert {
  return {
    projectId,
    integrationId: 7,
    status,
    opKey: op(),
    at,
    alert: {
      title: "Disk full",
      hosts: ["db-1"],
      severity: "high",
      startedAt: at.toISOString(),
      source: "tool",
      payload: { title: "Disk full", nested: { "a.b": 1 } },
      ...fields,
    },
  };
}
