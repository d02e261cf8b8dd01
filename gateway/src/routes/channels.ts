import { Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext } from "../http/context.js";
import { noStore } from "../http/no-store.js";
import { optionalBoolean, optionalString, readParams, requiredString } from "../http/params.js";
import { toChatIntegrationJson, toDeliveryJson, toHookJson } from "../presenters/channels.js";
import { must } from "../presenters/must.js";
import { graceParam, pathInt, projectOf } from "./alert-params.js";

const CHAT = "/projects/:id/integrations/:name";
const HOOKS = "/projects/:id/hooks";
const HOOK = `${HOOKS}/:hook_id`;

function chatFields(p: Record<string, unknown>) {
  return {
    webhook: optionalString(p, "webhook"),
    username: optionalString(p, "username"),
    channel: optionalString(p, "channel"),
    alertEvents: optionalBoolean(p, "alert_events"),
    alertChannel: optionalString(p, "alert_channel"),
    // PRODUCT.md section 12 names it `incidents_events`; GitLab answers `incident_events`: both are read.
    incidentEvents: optionalBoolean(p, "incidents_events") ?? optionalBoolean(p, "incident_events"),
    incidentChannel: optionalString(p, "incident_channel"),
  };
}

function hookFields(p: Record<string, unknown>) {
  return {
    token: optionalString(p, "token"),
    alertEvents: optionalBoolean(p, "alert_events"),
    incidentEvents: optionalBoolean(p, "incident_events"),
    enableSslVerification: optionalBoolean(p, "enable_ssl_verification"),
    signing: optionalBoolean(p, "signing"),
  };
}

/** Chat integrations and project hooks (PRODUCT.md section 12; docs/channels.md). Maintainer+, reads included. */
export function channelRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { channels } = deps;
  const chat = (req: Parameters<typeof projectOf>[0]) => ({ projectIdOrPath: projectOf(req), name: String(req.params.name) });
  const hook = (req: Parameters<typeof projectOf>[0]) => ({ projectIdOrPath: projectOf(req), hookId: pathInt(req, "hook_id") });

  router.get(CHAT, async (req, res) => {
    const { integration } = await channels.getChatIntegration(chat(req), callContext(res));
    res.json(toChatIntegrationJson(must(integration, "integration")));
  });
  router.put(CHAT, async (req, res) => {
    const request = { ...chat(req), ...chatFields(readParams(req)) };
    const { integration } = await channels.updateChatIntegration(request, callContext(res));
    res.json(toChatIntegrationJson(must(integration, "integration")));
  });
  router.delete(CHAT, async (req, res) => {
    await channels.deleteChatIntegration(chat(req), callContext(res));
    res.status(204).end();
  });
  router.post(`${CHAT}/test`, async (req, res) => {
    const result = await channels.testChatIntegration(chat(req), callContext(res));
    res.json({ delivered: result.delivered, response_status: result.responseStatus || null, error: result.error || null });
  });

  router.get(HOOKS, async (req, res) => {
    const { hooks } = await channels.listHooks({ projectIdOrPath: projectOf(req) }, callContext(res));
    res.json(hooks.map((h) => toHookJson(h)));
  });
  router.post(HOOKS, noStore, async (req, res) => {
    const p = readParams(req);
    const request = { projectIdOrPath: projectOf(req), url: requiredString(p, "url"), ...hookFields(p) };
    const { hook: created, signingSecret } = await channels.createHook(request, callContext(res));
    res.status(201).json(toHookJson(must(created, "hook"), signingSecret));
  });
  router.get(HOOK, async (req, res) => {
    const { hook: found } = await channels.getHook(hook(req), callContext(res));
    res.json(toHookJson(must(found, "hook")));
  });
  router.put(HOOK, async (req, res) => {
    const p = readParams(req);
    const request = { ...hook(req), url: optionalString(p, "url"), ...hookFields(p) };
    const { hook: updated } = await channels.updateHook(request, callContext(res));
    res.json(toHookJson(must(updated, "hook")));
  });
  router.delete(HOOK, async (req, res) => {
    await channels.deleteHook(hook(req), callContext(res));
    res.status(204).end();
  });
  router.post(`${HOOK}/signing_secret`, noStore, async (req, res) => {
    const request = { ...hook(req), gracePeriodSeconds: graceParam(readParams(req)) };
    const { hook: rotated, signingSecret } = await channels.rotateHookSigningSecret(request, callContext(res));
    res.status(201).json(toHookJson(must(rotated, "hook"), signingSecret));
  });

  router.get(`${HOOK}/events`, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), hookId: pathInt(req, "hook_id"), integrationName: "" };
    const { deliveries } = await channels.listDeliveries(request, callContext(res));
    res.json(deliveries.map(toDeliveryJson));
  });
  router.get(`${CHAT}/events`, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), hookId: 0, integrationName: String(req.params.name) };
    const { deliveries } = await channels.listDeliveries(request, callContext(res));
    res.json(deliveries.map(toDeliveryJson));
  });
  router.post(`${HOOK}/events/:event_id/resend`, async (req, res) => {
    const request = {
      projectIdOrPath: projectOf(req),
      hookId: pathInt(req, "hook_id"),
      integrationName: "",
      deliveryId: String(pathInt(req, "event_id")),
    };
    const { delivery } = await channels.resendDelivery(request, callContext(res));
    res.status(201).json(toDeliveryJson(must(delivery, "delivery")));
  });
  router.post(`${CHAT}/events/:event_id/resend`, async (req, res) => {
    const request = {
      projectIdOrPath: projectOf(req),
      hookId: 0,
      integrationName: String(req.params.name),
      deliveryId: String(pathInt(req, "event_id")),
    };
    const { delivery } = await channels.resendDelivery(request, callContext(res));
    res.status(201).json(toDeliveryJson(must(delivery, "delivery")));
  });
  return router;
}
