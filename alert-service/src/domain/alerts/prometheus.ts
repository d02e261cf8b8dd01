import { invalidArgument } from "@tocsin/core";
import { fingerprintOf } from "./fingerprint.js";
import { DEFAULT_TITLE, type NormalizedAlert, type Severity } from "./model.js";
import { DESCRIPTION_MAX_LENGTH, type NormalizeOptions, TITLE_MAX_LENGTH, toSeverity } from "./normalize.js";
import { flattenHosts, presentText, truncateHosts } from "./text.js";
import { parseTime } from "./times.js";

/** Keys every Alertmanager webhook (version 4) carries. */
const REQUIRED_KEYS = [
  "version",
  "groupKey",
  "status",
  "receiver",
  "groupLabels",
  "commonLabels",
  "commonAnnotations",
  "externalURL",
  "alerts",
];

/** The reference's Prometheus severity aliases. */
const ALIASES: Record<string, Severity> = {
  s1: "critical",
  s2: "high",
  s3: "medium",
  s4: "low",
  s5: "info",
  p1: "critical",
  p2: "high",
  p3: "medium",
  p4: "low",
  p5: "info",
  warn: "low",
  warning: "low",
  minor: "low",
  error: "medium",
  alert: "medium",
  major: "high",
  page: "high",
  emergency: "critical",
  fatal: "critical",
  debug: "info",
  information: "info",
  notice: "info",
};

/** Why a payload is not an Alertmanager webhook (version 4); undefined when it is one. */
export function alertmanagerProblem(payload: Record<string, unknown>): string | undefined {
  const missing = REQUIRED_KEYS.filter((k) => !Object.hasOwn(payload, k));
  if (missing.length > 0) return `it lacks ${missing.join(", ")}`;
  if (payload.version !== "4") return `its version is ${JSON.stringify(payload.version)}, not "4"`;
  const alerts = payload.alerts;
  if (!Array.isArray(alerts)) return "alerts is not an array";
  if (!alerts.every((a) => a !== null && typeof a === "object" && !Array.isArray(a)))
    return "alerts holds something other than objects";
  return undefined;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function severityOf(raw: unknown): Severity {
  const key = typeof raw === "string" ? raw.trim().toLowerCase() : "";
  return ALIASES[key] ?? toSeverity(raw);
}

/** Real end of a Prometheus alert: `status: resolved`, or an `endsAt` already in the past. */
function endOf(alert: Record<string, unknown>, receivedAt: Date): Date | undefined {
  const ends = parseTime(alert.endsAt);
  const valid = ends && ends.getUTCFullYear() > 1;
  if (alert.status === "resolved") return valid ? ends : receivedAt;
  return valid && ends.getTime() <= receivedAt.getTime() ? ends : undefined;
}

function toAlert(raw: unknown, opts: NormalizeOptions): NormalizedAlert {
  const alert = record(raw);
  const labels = record(alert.labels);
  const annotations = record(alert.annotations);
  const title = presentText(annotations.title, TITLE_MAX_LENGTH) ?? presentText(annotations.summary, TITLE_MAX_LENGTH);
  const out: NormalizedAlert = {
    title: title ?? presentText(labels.alertname, TITLE_MAX_LENGTH) ?? DEFAULT_TITLE,
    hosts: truncateHosts(flattenHosts(labels.instance)),
    severity: severityOf(labels.severity),
    startedAt: (parseTime(alert.startsAt) ?? opts.receivedAt).toISOString(),
    monitoringTool: "Prometheus",
    source: "Prometheus",
    payload: alert,
  };
  const description = presentText(annotations.description, DESCRIPTION_MAX_LENGTH);
  if (description) out.description = description;
  const env = presentText(labels.gitlab_environment_name, 255);
  if (env) out.environmentName = env;
  const ended = endOf(alert, opts.receivedAt);
  if (ended) out.endedAt = ended.toISOString();
  const fingerprint = fingerprintOf(labels);
  if (fingerprint) out.fingerprint = fingerprint;
  return out;
}

/** Every alert of an Alertmanager webhook, in order. INVALID_ARGUMENT when it is not one. */
export function normalizeAlertmanager(payload: Record<string, unknown>, opts: NormalizeOptions): NormalizedAlert[] {
  const problem = alertmanagerProblem(payload);
  if (problem) throw invalidArgument("PAYLOAD_INVALID", `The payload is not an Alertmanager webhook (version 4): ${problem}`);
  return (payload.alerts as unknown[]).map((a) => toAlert(a, opts));
}
