import type { CallContext, Logger } from "@tocsin/core";
import type { AuthClient, PromiseClient } from "@tocsin/grpc";
import type { alertSilencesV1, alertV1, channelsV1, oncallV1, settingsV1 } from "@tocsin/proto";
import type { Tracing } from "@tocsin/telemetry";
import type { GatewayConfig } from "./config.js";

export type { AuthClient };
export type AlertClient = PromiseClient<typeof alertV1.AlertServiceService>;
export type ChannelClient = PromiseClient<typeof channelsV1.ChannelServiceService>;
export type SilenceClient = PromiseClient<typeof alertSilencesV1.SilenceServiceService>;
export type SettingsClient = PromiseClient<typeof settingsV1.SettingsServiceService>;
export type OncallClient = PromiseClient<typeof oncallV1.OncallServiceService>;

/**
 * The webhook's way into alert-service: one post submitted for ingest, answered as the unary
 * `IngestAlert` would (accepted, or the AppError it would have thrown). The gateway's port is the
 * micro-batched IngestAlerts stream (clients/ingest-batcher.ts).
 */
export interface IngestPort {
  submit(
    request: alertV1.IngestAlertRequest,
    ctx: CallContext,
    opts?: { timeoutMs?: number },
  ): Promise<alertV1.IngestAlertResponse>;
}

/** Everything routes need; built once in createGateway, replaced in tests. */
export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  auth: AuthClient;
  alert: AlertClient;
  /** The webhook's ingest of posts into alert-service (the IngestAlerts stream). */
  alertIngest: IngestPort;
  settings: SettingsClient;
  /** settings-service's on-call API (schedules and escalation policies). */
  oncall: OncallClient;
  /** alert-service's ChannelService (chat integrations, project hooks; docs/channels.md). */
  channels: ChannelClient;
  /** alert-service's SilenceService (same address as `alert`). */
  silences: SilenceClient;
  /** The gateway's tracing, when OTEL_EXPORTER_OTLP_ENDPOINT is set (request spans). */
  tracing?: Tracing;
  /** Cleanups run when the gateway stops (caches, streams); modules push theirs here. */
  closers: Array<() => Promise<void> | void>;
}
