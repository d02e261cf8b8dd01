import type { Alert } from "../alerts/model.js";

/**
 * What a silence's matchers see of an alert (section 13): the Prometheus labels of a Prometheus
 * alert, and for every alert `title`, `severity`, `service`, `monitoring_tool`, `environment`,
 * `host` (any of `hosts`) and `fingerprint`.
 */
export interface SilenceSubject {
  /** Prometheus labels (empty for other alerts). */
  labels: Record<string, string>;
  title: string;
  severity: string;
  service: string;
  monitoringTool: string;
  environment: string;
  hosts: string[];
  fingerprint: string;
}

/** The Prometheus labels of a stored Prometheus alert payload (`payload.labels`, strings only). */
function prometheusLabels(payload: Record<string, unknown>): Record<string, string> {
  const raw = payload.labels;
  const labels: Record<string, string> = {};
  if (raw && typeof raw === "object" && !Array.isArray(raw))
    for (const [name, value] of Object.entries(raw)) if (typeof value === "string") labels[name] = value;
  return labels;
}

function fieldValues(subject: SilenceSubject, name: string): string[] {
  switch (name) {
    case "title":
      return [subject.title];
    case "severity":
      return [subject.severity];
    case "service":
      return [subject.service];
    case "monitoring_tool":
      return [subject.monitoringTool];
    case "environment":
      return [subject.environment];
    case "host":
      return subject.hosts;
    case "fingerprint":
      return [subject.fingerprint];
    default:
      return [];
  }
}

/**
 * Every value the subject has under `name`: the label's and the alert field's (a Prometheus
 * `severity=warning` label and the mapped `severity` field `medium` both count), one per host for
 * `host`. Empty values are dropped; a name without any value reads as `[""]`, as a missing label
 * does in Alertmanager.
 */
export function valuesOf(subject: SilenceSubject, name: string): string[] {
  const values: string[] = [];
  const label = Object.hasOwn(subject.labels, name) ? subject.labels[name] : undefined;
  if (label) values.push(label);
  for (const v of fieldValues(subject, name)) if (v && !values.includes(v)) values.push(v);
  return values.length > 0 ? values : [""];
}

/** The subject of a stored alert; `prometheus`: it came through a Prometheus integration (its payload's labels count). */
export function subjectOfAlert(
  alert: Pick<
    Alert,
    "title" | "severity" | "service" | "monitoringTool" | "environmentName" | "hosts" | "fingerprint" | "payload"
  >,
  prometheus: boolean,
): SilenceSubject {
  return {
    labels: prometheus ? prometheusLabels(alert.payload) : {},
    title: alert.title,
    severity: alert.severity,
    service: alert.service,
    monitoringTool: alert.monitoringTool,
    environment: alert.environmentName,
    hosts: alert.hosts,
    fingerprint: alert.fingerprint ?? "",
  };
}
