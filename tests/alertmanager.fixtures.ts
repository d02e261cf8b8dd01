/**
 * Alertmanager webhook payloads (version 4) shaped exactly as Alertmanager 0.2x sends them
 * (`notify/webhook`): firing alerts carry Go's zero time as `endsAt`, resolved ones their end.
 */

export interface AmAlert {
  status: "firing" | "resolved";
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
  fingerprint: string;
}

export const ZERO_TIME = "0001-01-01T00:00:00Z";

/** One alert of a batch; `endsAt` is the zero time unless given. */
export function amAlert(
  labels: Record<string, string>,
  annotations: Record<string, string> = {},
  options: { status?: "firing" | "resolved"; startsAt?: string; endsAt?: string; fingerprint?: string } = {},
): AmAlert {
  return {
    status: options.status ?? "firing",
    labels,
    annotations,
    startsAt: options.startsAt ?? "2026-11-20T10:00:00.123456789Z",
    endsAt: options.endsAt ?? ZERO_TIME,
    generatorURL: `http://prometheus.example.com:9090/graph?g0.expr=up+%3D%3D+0&g0.tab=1&alert=${labels.alertname ?? ""}`,
    fingerprint: options.fingerprint ?? Math.random().toString(16).slice(2, 18).padEnd(16, "0"),
  };
}

/** The whole webhook body, with group and common labels derived from the alerts. */
export function amWebhook(alerts: AmAlert[], status?: "firing" | "resolved") {
  const common = (pick: (a: AmAlert) => Record<string, string>) => {
    const first = alerts[0] ? pick(alerts[0]) : {};
    return Object.fromEntries(Object.entries(first).filter(([k, v]) => alerts.every((a) => pick(a)[k] === v)));
  };
  const groupLabels = { alertname: alerts[0]?.labels.alertname ?? "" };
  return {
    receiver: "tocsin",
    status: status ?? (alerts.some((a) => a.status === "firing") ? "firing" : "resolved"),
    alerts,
    groupLabels,
    commonLabels: common((a) => a.labels),
    commonAnnotations: common((a) => a.annotations),
    externalURL: "http://alertmanager.example.com:9093",
    version: "4",
    groupKey: `{}/{severity=~"^(?:critical|warning)$"}:{alertname="${groupLabels.alertname}"}`,
    truncatedAlerts: 0,
  };
}

/** The same alerts, resolved at `endsAt` (as Alertmanager re-sends them once they end). */
export function resolvedCopy(alerts: AmAlert[], endsAt: string): AmAlert[] {
  return alerts.map((a) => ({ ...a, status: "resolved", endsAt }));
}

/** Headers of Alertmanager's `http_config.authorization: {type: Bearer, credentials: <key>}`. */
export function amBearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}`, "user-agent": "Alertmanager/0.27.0" };
}

/** Headers of Alertmanager's `http_config.basic_auth: {username, password: <key>}`. */
export function amBasic(username: string, key: string): Record<string, string> {
  return {
    authorization: `Basic ${Buffer.from(`${username}:${key}`).toString("base64")}`,
    "user-agent": "Alertmanager/0.27.0",
  };
}
