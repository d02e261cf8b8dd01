import { createClient, replicaCount } from "@tocsin/grpc";
import { alertSilencesV1, alertV1, authV1, channelsV1, oncallV1, settingsV1 } from "@tocsin/proto";
import type { Tracing } from "@tocsin/telemetry";
import { createIngestBatcher } from "./clients/ingest-batcher.js";
import type { GatewayConfig } from "./config.js";
import type { AlertClient, AuthClient, ChannelClient, IngestPort, OncallClient, SettingsClient, SilenceClient } from "./deps.js";

const DEFAULT_RPC_TIMEOUT_MS = 5000;

export interface GatewayClients {
  auth: AuthClient;
  alert: AlertClient;
  alertIngest: IngestPort;
  settings: SettingsClient;
  oncall: OncallClient;
  channels: ChannelClient;
  silences: SilenceClient;
  close(): void;
}

/**
 * One client per service; every call has a deadline, so a service that is down never hangs a
 * request. `alertIngest.submit` (the webhook's call) travels micro-batched on the IngestAlerts
 * stream (clients/ingest-batcher.ts); every `alert` call is unary. With tracing on, every
 * call (each item of the stream too) has its client span.
 */
export function createClients(
  config: GatewayConfig,
  tracing: Tracing | undefined,
  timeoutMs = DEFAULT_RPC_TIMEOUT_MS,
): GatewayClients {
  const common = { timeoutMs, ...(tracing ? { tracing } : {}) };
  const auth = createClient(authV1.AuthServiceService, { target: "auth", address: config.authServiceAddr, ...common });
  const alert = createClient(alertV1.AlertServiceService, { target: "alert", address: config.alertServiceAddr, ...common });
  const alertIngest = createIngestBatcher(alert, {
    timeoutMs,
    streams: replicaCount(config.alertServiceAddr),
    ...(tracing ? { tracing } : {}),
  });
  const channels = createClient(channelsV1.ChannelServiceService, {
    target: "alert",
    address: config.alertServiceAddr,
    ...common,
  });
  const settings = createClient(settingsV1.SettingsServiceService, {
    target: "settings",
    address: config.settingsServiceAddr,
    ...common,
  });
  const oncall = createClient(oncallV1.OncallServiceService, {
    target: "settings",
    address: config.settingsServiceAddr,
    ...common,
  });
  const silences = createClient(alertSilencesV1.SilenceServiceService, {
    target: "alert",
    address: config.alertServiceAddr,
    ...common,
  });
  return {
    auth,
    alert,
    alertIngest,
    settings,
    oncall,
    channels,
    silences,
    close() {
      silences.close();
      auth.close();
      alertIngest.close();
      alert.close();
      settings.close();
      oncall.close();
      channels.close();
    },
  };
}
