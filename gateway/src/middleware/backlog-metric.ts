import { type Logger, uuidV7 } from "@tocsin/core";
import { Gauge, type Registry } from "prom-client";
import type { AlertClient } from "../deps.js";

/** How long a scrape waits for alert-service's count before it reports it unknown. */
const STATS_TIMEOUT_MS = 1_000;

/**
 * `tocsin_alert_backlog` on the gateway's `/metrics`: the alert-processing jobs accepted and not
 * yet done (waiting or running), as alert-service's GetIngestStats counts them when Prometheus
 * scrapes — with BullMQ the shared queue's, with the embedded queue the answering replica's. It
 * is what the backlog bound (`INGEST_BACKLOG_LIMIT`) holds webhooks against, so an alert rule on
 * it tells the operator that processing falls behind. NaN when alert-service does not answer
 * within a second: an unknown backlog is not an empty one.
 */
export function registerBacklogMetric(registry: Registry, alert: Pick<AlertClient, "getIngestStats">, logger: Logger): void {
  new Gauge({
    name: "tocsin_alert_backlog",
    help: "Alert-processing jobs accepted and not yet done, read from alert-service at each scrape (NaN: no answer within 1 s)",
    registers: [registry],
    async collect() {
      try {
        const stats = await alert.getIngestStats({}, { requestId: uuidV7() }, { timeoutMs: STATS_TIMEOUT_MS });
        this.set(stats.pending);
      } catch (err) {
        logger.debug({ err }, "backlog metric: alert-service did not answer");
        this.set(Number.NaN);
      }
    },
  });
}
