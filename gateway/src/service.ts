import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServiceDeps } from "@tocsin/core";
import { createApp } from "./app.js";
import { createClients } from "./clients.js";
import type { GatewayConfig } from "./config.js";
import type { GatewayDeps } from "./deps.js";

export interface RunningGateway {
  /** `http://127.0.0.1:<bound port>` */
  url: string;
  /** Graceful and idempotent: stops accepting, lets requests in flight finish, closes the clients. */
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
  const clients = createClients(resolved);
  const { auth, alert, settings } = clients;
  const deps: GatewayDeps = { config: resolved, logger, auth, alert, settings, closers: [] };
  server.on("request", createApp(deps));
  let stopping: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    stop() {
      stopping ??= (async () => {
        await close(server);
        for (const closer of deps.closers) {
          try {
            await closer();
          } catch (err) {
            logger.warn({ err }, "gateway cleanup failed");
          }
        }
        clients.close();
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

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive connections would hold close() open; idle ones go now, busy ones when done.
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 2000).unref();
  });
}
