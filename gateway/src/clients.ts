import { createClient, replicaCount } from "@tocsin/grpc";
import { alertV1, authV1, settingsV1 } from "@tocsin/proto";
import { createIngestBatcher } from "./clients/ingest-batcher.js";
import type { GatewayConfig } from "./config.js";
import type { AlertClient, AuthClient, SettingsClient } from "./deps.js";

const DEFAULT_RPC_TIMEOUT_MS = 5000;

export interface GatewayClients {
  auth: AuthClient;
  alert: AlertClient;
  settings: SettingsClient;
  close(): void;
}

/**
 * One client per service; every call has a deadline, so a service that is down never hangs a
 * request. `alert.ingestAlert` (the webhook's call) travels micro-batched on the IngestAlerts
 * stream (clients/ingest-batcher.ts); every other alert call is unary.
 */
export function createClients(config: GatewayConfig, timeoutMs = DEFAULT_RPC_TIMEOUT_MS): GatewayClients {
  const auth = createClient(authV1.AuthServiceService, { target: "auth", address: config.authServiceAddr, timeoutMs });
  const alertUnary = createClient(alertV1.AlertServiceService, {
    target: "alert",
    address: config.alertServiceAddr,
    timeoutMs,
  });
  const batcher = createIngestBatcher(alertUnary, { timeoutMs, streams: replicaCount(config.alertServiceAddr) });
  const alert: AlertClient = { ...alertUnary, ingestAlert: batcher.ingestAlert };
  const settings = createClient(settingsV1.SettingsServiceService, {
    target: "settings",
    address: config.settingsServiceAddr,
    timeoutMs,
  });
  return {
    auth,
    alert,
    settings,
    close() {
      auth.close();
      batcher.close();
      alertUnary.close();
      settings.close();
    },
  };
}
