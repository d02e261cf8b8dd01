import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createLogger, type Logger } from "@tocsin/core";
import { createApp } from "./app.js";
import { createClients } from "./clients.js";
import { loadConfig } from "./config.js";
import type { GatewayDeps } from "./deps.js";

export { createApp } from "./app.js";
export { type GatewayConfig, loadConfig } from "./config.js";
export type { GatewayDeps } from "./deps.js";
export { toHttpError } from "./http-errors.js";

export interface RunningGateway {
  /** `http://127.0.0.1:<bound port>` */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Parses the environment, binds the HTTP port (0 allowed), builds the gRPC clients and the app.
 * Without EXTERNAL_URL and with port 0, integration URLs use the bound port.
 */
export async function startGateway(
  env: Record<string, string | undefined>,
  overrides: { logger?: Logger } = {},
): Promise<RunningGateway> {
  const config = loadConfig(env);
  const logger = overrides.logger ?? createLogger("gateway", config.logLevel);
  const server = createServer();
  const port = await listen(server, config.port);
  if (!env.EXTERNAL_URL && config.port === 0) config.externalUrl = `http://localhost:${port}`;
  const clients = createClients(config);
  const deps: GatewayDeps = { config, logger, auth: clients.auth, alert: clients.alert, settings: clients.settings, closers: [] };
  server.on("request", createApp(deps));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async stop() {
      await close(server);
      for (const closer of deps.closers) {
        try {
          await closer();
        } catch (err) {
          logger.warn({ err }, "gateway cleanup failed");
        }
      }
      clients.close();
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
