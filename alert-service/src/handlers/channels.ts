import { AppError, invalidArgument } from "@tocsin/core";
import type { ServiceHandlers } from "@tocsin/grpc";
import type { channelsV1 } from "@tocsin/proto";
import type { DeliveryLogUseCases, DeliveryTarget } from "../domain/channels/deliveries.js";
import type { Destinations } from "../domain/channels/destinations.js";
import type { DeliveryRecord } from "../domain/channels/ports.js";
import { maskUrl } from "../domain/channels/rules.js";
import { type ChatKind, type DestinationRecord, isChatKind } from "../domain/channels/types.js";

type Def = typeof channelsV1.ChannelServiceService;

const alertStatus = (d: DestinationRecord) => (d.disabled ? "disabled" : "executable");

function toChatMessage(d: DestinationRecord): channelsV1.ChatIntegration {
  return {
    id: d.id,
    name: d.kind,
    webhookMasked: maskUrl(d.url),
    username: d.username,
    channel: d.channel,
    alertEvents: d.alertEvents,
    alertChannel: d.alertChannel,
    incidentEvents: d.incidentEvents,
    incidentChannel: d.incidentChannel,
    alertStatus: alertStatus(d),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

function toHookMessage(d: DestinationRecord): channelsV1.Hook {
  return {
    id: d.id,
    projectId: d.projectId,
    url: d.url,
    alertEvents: d.alertEvents,
    incidentEvents: d.incidentEvents,
    enableSslVerification: d.enableSslVerification,
    signing: d.signing,
    alertStatus: alertStatus(d),
    tokenSet: d.token !== null,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    previousSigningSecretExpiresAt: d.previousSigningSecretExpiresAt ?? undefined,
  };
}

function toDeliveryMessage(d: DeliveryRecord): channelsV1.Delivery {
  return {
    id: String(d.id),
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    responseStatus: d.responseStatus ?? 0,
    durationMs: d.durationMs,
    error: d.error ?? "",
    createdAt: d.createdAt,
  };
}

/** A hook by id, else a chat integration by name. */
function targetOf(req: { hookId: number; integrationName: string }): DeliveryTarget {
  if (req.hookId > 0) return { hookId: req.hookId };
  return { kind: chatKind({ name: req.integrationName }) };
}

function project(req: { projectIdOrPath: string }): string {
  const value = req.projectIdOrPath.trim();
  if (!value) throw invalidArgument("PARAM_MISSING", "id is missing");
  return value;
}

function chatKind(req: { name: string }): ChatKind {
  if (!isChatKind(req.name)) throw new AppError("NOT_FOUND", "NOT_FOUND", "404 Not Found");
  return req.name;
}

/** ChannelService: thin mapping onto the destinations use-cases (configuration) and the delivery log. */
export function channelHandlers(m: Destinations, log: DeliveryLogUseCases): ServiceHandlers<Def> {
  return {
    async getChatIntegration(req, ctx) {
      return { integration: toChatMessage(await m.getChat(project(req), chatKind(req), ctx)) };
    },
    async updateChatIntegration(req, ctx) {
      const { webhook, username, channel, alertEvents, alertChannel, incidentEvents, incidentChannel } = req;
      const input = { webhook, username, channel, alertEvents, alertChannel, incidentEvents, incidentChannel };
      return { integration: toChatMessage(await m.putChat(project(req), chatKind(req), input, ctx)) };
    },
    async deleteChatIntegration(req, ctx) {
      await m.deleteChat(project(req), chatKind(req), ctx);
      return {};
    },
    async testChatIntegration(req, ctx) {
      const result = await log.test(project(req), chatKind(req), ctx);
      const delivered = result.status !== null && result.status >= 200 && result.status < 300;
      return { responseStatus: result.status ?? 0, error: delivered ? "" : (result.error ?? `HTTP ${result.status}`), delivered };
    },
    async listHooks(req, ctx) {
      return { hooks: (await m.listHooks(project(req), ctx)).map(toHookMessage) };
    },
    async createHook(req, ctx) {
      const { url, token, alertEvents, incidentEvents, enableSslVerification, signing } = req;
      const input = { url, token, alertEvents, incidentEvents, enableSslVerification, signing };
      const { hook, signingSecret } = await m.createHook(project(req), input, ctx);
      return { hook: toHookMessage(hook), signingSecret };
    },
    async getHook(req, ctx) {
      return { hook: toHookMessage(await m.getHook(project(req), req.hookId, ctx)) };
    },
    async updateHook(req, ctx) {
      const { url, token, alertEvents, incidentEvents, enableSslVerification, signing } = req;
      const input = { url, token, alertEvents, incidentEvents, enableSslVerification, signing };
      return { hook: toHookMessage(await m.updateHook(project(req), req.hookId, input, ctx)) };
    },
    async deleteHook(req, ctx) {
      await m.deleteHook(project(req), req.hookId, ctx);
      return {};
    },
    async rotateHookSigningSecret(req, ctx) {
      const { hook, signingSecret } = await m.rotateHookSecret(project(req), req.hookId, req.gracePeriodSeconds, ctx);
      return { hook: toHookMessage(hook), signingSecret };
    },
    async listDeliveries(req, ctx) {
      return { deliveries: (await log.list(project(req), targetOf(req), ctx)).map(toDeliveryMessage) };
    },
    async resendDelivery(req, ctx) {
      const id = Number(req.deliveryId);
      if (!Number.isSafeInteger(id) || id < 1) throw invalidArgument("PARAM_INVALID", "event_id is invalid");
      return { delivery: toDeliveryMessage(await log.resend(project(req), targetOf(req), id, ctx)) };
    },
  };
}
