import { z } from "@tocsin/core";
import { ALERT_STATUSES, SEVERITIES } from "../domain/alerts/model.js";
import { pageKey } from "../domain/paging/model.js";
import type { PageRuleJob, PageStartJob } from "../domain/paging/ports.js";
import { DEFAULT_LANES } from "./queue.js";

/** Queue facts: names, job names, payload schemas, idempotency ids, lanes. */

export const QUEUE_PREFIX = "tocsin";
export const laneQueueName = (lane: number) => `alerts-lane-${lane}`;
/**
 * `auto-resolve` waits in the timer queue; when due it is moved into its alert's lane as
 * `auto-resolve-apply`, which changes the alert (every write to an alert runs in its lane).
 */
export const JOB_NAMES = {
  processAlert: "process-alert",
  incident: "incident",
  autoResolve: "auto-resolve",
  autoResolveApply: "auto-resolve-apply",
  setStatus: "set-status",
  /**
   * Paging (issue 22): `page-start` and `page-rule` wait in the timer queue, whose runner makes
   * their settings-/auth-service calls (off the lanes), then apply in the alert's lane.
   */
  pageStart: "page-start",
  pageStartApply: "page-start-apply",
  pageRule: "page-rule",
  pageRuleApply: "page-rule-apply",
  unsilence: "unsilence",
  unsilenceApply: "unsilence-apply",
} as const;

/**
 * The alert's payload as the monitor sent it: any JSON object. Checked as one, not key by key: a
 * JSON object's keys are strings and its values JSON, so `z.record(z.string(), z.unknown())`
 * accepted the same and copied every payload for each job it checked (≈ 1.3 µs of 2 per job,
 * bench/notes/2026-11-29-drain.md). The job keeps the payload object it was read with.
 */
const jsonObject = z.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "expected an object",
);

const normalizedAlertSchema = z.object({
  title: z.string(),
  description: z.string().optional(),
  service: z.string().optional(),
  monitoringTool: z.string().optional(),
  hosts: z.array(z.string()),
  severity: z.enum(SEVERITIES),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  environmentName: z.string().optional(),
  fingerprint: z.string().optional(),
  source: z.string(),
  payload: jsonObject,
});

export const processAlertSchema = z.object({
  jobId: z.string().min(1),
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  integrationId: z.number().int().nonnegative(),
  alert: normalizedAlertSchema,
  log: z.record(z.string(), z.string()).optional(),
  autoResolveMinutes: z.number().int().positive().optional(),
});

export const autoResolveSchema = z.object({
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  alertId: z.number().int().positive(),
  events: z.number().int().positive(),
  minutes: z.number().int().positive(),
  laneKey: z.string().min(1),
});

export const unsilenceSchema = z.object({
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  alertId: z.number().int().positive(),
  at: z.string().min(1),
  laneKey: z.string().min(1),
});

export const statusChangeSchema = z.object({
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  alertId: z.number().int().positive(),
  status: z.enum(ALERT_STATUSES),
  at: z.string().min(1),
  laneKey: z.string().min(1),
  note: z.string().optional(),
});

export const incidentSchema = z.object({
  kind: z.enum(["open", "close"]),
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  alertId: z.number().int().positive(),
  laneKey: z.string().min(1),
});

const policySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  rules: z.array(
    z.object({
      status: z.enum(["acknowledged", "resolved"]),
      elapsedSeconds: z.number().int().nonnegative(),
      schedule: z.object({ iid: z.number().int().positive(), name: z.string() }).optional(),
      user: z.object({ id: z.number().int().positive(), username: z.string() }).optional(),
    }),
  ),
  repeatEverySeconds: z.number().int().positive().nullable(),
  maxRepeats: z.number().int().nonnegative(),
});

const pageUserSchema = z.object({ id: z.number().int().positive(), username: z.string() });

const pageTriggerSchema = z.object({
  requestId: z.string().min(1),
  projectId: z.number().int().positive(),
  alertId: z.number().int().positive(),
  laneKey: z.string().min(1),
  triggerOp: z.string().min(1),
  triggeredAt: z.string().min(1),
});

export const pageStartSchema = pageTriggerSchema.extend({ policy: policySchema.nullable().optional() });

export const pageRuleSchema = pageTriggerSchema.extend({
  rule: z.number().int().nonnegative(),
  round: z.number().int().nonnegative(),
  policy: policySchema,
  oncall: z.object({ users: z.array(pageUserSchema), skipped: z.array(pageUserSchema) }).optional(),
});

/** Paging's job ids: one start per (alert, trigger); a rule job's id is its page key (`page:<alert>:<trigger>:<rule>:<round>`). */
export const pageStartJobId = (job: Pick<PageStartJob, "alertId" | "triggerOp">) => `page-start:${job.alertId}:${job.triggerOp}`;
export const pageRuleJobId = (job: PageRuleJob) => pageKey(job.alertId, job.triggerOp, job.rule, job.round);

/** FNV-1a of the lane key, so that one (project, fingerprint) always lands in one lane. */
export function laneOf(laneKey: string, lanes = DEFAULT_LANES): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < laneKey.length; i++) {
    h ^= laneKey.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % lanes;
}
