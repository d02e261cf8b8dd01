import { createServer, type Server } from "node:http";
import type { Logger } from "@tocsin/core";
import { Counter, Gauge, Registry } from "prom-client";
import type { MailMetrics } from "../domain/mail/ports.js";

export interface MailMetricsRegistry extends MailMetrics {
  registry: Registry;
  /** Serves `GET /metrics` on `port` (0: any free port); resolves to the bound port. */
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * Prometheus metrics of the mail pipeline: counters `tocsin_mail_sent_total`,
 * `tocsin_mail_failed_total` (attempts that will be retried), `tocsin_mail_dropped_total`
 * (refused with 5xx) and the gauge `tocsin_mail_queued` (mail jobs waiting, delayed or running).
 */
export function createMailMetrics(queued: () => Promise<number>, logger: Logger): MailMetricsRegistry {
  const registry = new Registry();
  const sent = new Counter({
    name: "tocsin_mail_sent_total",
    help: "Alert e-mails accepted by the mail server",
    registers: [registry],
  });
  const failed = new Counter({
    name: "tocsin_mail_failed_total",
    help: "Alert e-mail attempts that failed and will be retried (connection errors, 4xx)",
    registers: [registry],
  });
  const dropped = new Counter({
    name: "tocsin_mail_dropped_total",
    help: "Alert e-mails refused for good by the mail server (5xx)",
    registers: [registry],
  });
  new Gauge({
    name: "tocsin_mail_queued",
    help: "Mail jobs waiting, delayed or running",
    registers: [registry],
    async collect() {
      this.set(await queued());
    },
  });
  let server: Server | undefined;
  return {
    registry,
    sent: () => sent.inc(),
    failed: () => failed.inc(),
    dropped: () => dropped.inc(),
    listen(port, host) {
      server = createServer((req, res) => {
        if (req.url !== "/metrics") {
          res.writeHead(404).end();
          return;
        }
        registry.metrics().then(
          (body) => res.writeHead(200, { "content-type": registry.contentType }).end(body),
          (err) => {
            logger.warn({ err }, "metrics failed");
            res.writeHead(500).end();
          },
        );
      });
      const s = server;
      return new Promise((resolve, reject) => {
        s.once("error", reject);
        s.listen(port, host, () => {
          const address = s.address();
          resolve(typeof address === "object" && address ? address.port : port);
        });
      });
    },
    close: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
}
