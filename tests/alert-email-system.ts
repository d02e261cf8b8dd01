import { until } from "@tocsin/testing";
import { api } from "./api.js";
import { startSystem } from "./harness.js";

/**
 * The whole system in-process for the alert e-mail tests: tests/harness.ts's `startSystem` with
 * alert-service's metrics port (METRICS_PORT=0), its data directory (the outbox) and a metric reader.
 */
export interface MailSystem {
  url: string;
  adminToken: string;
  alertDataDir: string;
  metricsUrl: string;
  /** The value of a metric line (`name` or `name{labels}`), 0 when absent. */
  metric(name: string): Promise<number>;
  /**
   * Resolves once no mail job is waiting, delayed or running (`tocsin_mail_queued` 0): every mail
   * of the alerts processed so far has been sent or dropped, so a check that a mail did NOT come
   * can fail. Not for a moment when a delayed job (a digest) is meant to be pending.
   */
  mailSettled(): Promise<void>;
  stop(): Promise<void>;
}

export async function startMailSystem(env: Record<string, string>): Promise<MailSystem> {
  const sys = await startSystem({
    env,
    adminToken: "admin-token-for-mail-tests-0123456789",
    alertEnv: { METRICS_PORT: "0" },
  });
  const metricsUrl = `http://127.0.0.1:${sys.alertMetricsPort}/metrics`;
  return {
    url: sys.url,
    adminToken: sys.adminToken,
    alertDataDir: sys.alertDataDir,
    metricsUrl,
    metric: (name) => readMetric(metricsUrl, name),
    mailSettled: () => mailSettled(metricsUrl),
    stop: () => sys.stop(),
  };
}

/** Resolves once alert-service's metrics at `metricsUrl` show no mail job waiting, delayed or running. */
export async function mailSettled(metricsUrl: string, timeoutMs = 30_000): Promise<void> {
  await until(async () => (await readMetric(metricsUrl, "tocsin_mail_queued")) === 0, timeoutMs);
}

/** The value of a metric line (`name` or `name{labels}`) at `metricsUrl`, 0 when absent. */
async function readMetric(metricsUrl: string, name: string): Promise<number> {
  const text = (await api(metricsUrl).get("")).text;
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : 0;
}
