import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServiceDeps } from "@tocsin/core";
import { startTracing } from "@tocsin/telemetry";
import { createApp, createHttpShared } from "./app.js";
import { createClients } from "./clients.js";
import type { GatewayConfig } from "./config.js";
import type { GatewayDeps } from "./deps.js";
import { createDrain } from "./http/drain.js";
import { createWebhookHandler } from "./webhook/handler.js";

export interface RunningGateway {
  /** `http://127.0.0.1:<bound port>` */
  url: string;
  /**
   * Graceful and idempotent: stops accepting, answers every request in flight (those arriving on
   * busy keep-alive connections included) with `Connection: close`, then closes the clients.
   */
  stop(): Promise<void>;
}

/**
 * The gateway: binds the HTTP port (0 allowed), builds the gRPC clients and the app. Its health
 * policy is `/-/readiness`, which asks the three services on every probe. Without EXTERNAL_URL
 * and with port 0, integration URLs use the bound port.
 */
export async function createGateway(config: GatewayConfig, { logger }: ServiceDeps): Promise<RunningGateway> {
  const server = createServer();
  const port = await listen(server, config.port);
  const defaultExternalUrl = config.externalUrl === `http://localhost:${config.port}`;
  const resolved = config.port === 0 && defaultExternalUrl ? { ...config, externalUrl: `http://localhost:${port}` } : config;
  const tracing = await startTracing(config.tracing);
  const clients = createClients(resolved, tracing);
  const { auth, alert, alertIngest, settings, oncall, channels, silences } = clients;
  const deps: GatewayDeps = {
    config: resolved,
    logger,
    auth,
    alert,
    alertIngest,
    settings,
    oncall,
    channels,
    silences,
    closers: [],
    ...(tracing ? { tracing } : {}),
  };
  const shared = createHttpShared(deps);
  const app = createApp(deps, shared);
  const webhook = createWebhookHandler(deps, shared);
  const drain = createDrain(server);
  server.on("request", (req, res) => {
    drain.track(req, res);
    // Webhook posts (the alert storm's path) on plain node:http; everything else through express.
    if (!webhook(req, res)) app(req, res);
  });
  let stopping: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    stop() {
      stopping ??= (async () => {
        await drain.close();
        for (const closer of deps.closers) {
          try {
            await closer();
          } catch (err) {
            logger.warn({ err }, "gateway cleanup failed");
          }
        }
        clients.close();
        await tracing?.shutdown();
      })();
      return stopping;
    },
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, () => resolve((server.address() as AddressInfo).port));
  });
}
