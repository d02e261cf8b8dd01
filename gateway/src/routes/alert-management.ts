import { invalidArgument, paramInvalid, paramMissing } from "@tocsin/core";
import { Router } from "express";
import type { GatewayDeps } from "../deps.js";
import { callContext } from "../http/context.js";
import { noStore } from "../http/no-store.js";
import { optionalBoolean, optionalInt, optionalString, readParams } from "../http/params.js";
import { rawTextBody } from "../middleware/body-parsers.js";
import {
  toAlertJson,
  toDryRunJson,
  toIntegrationJson,
  toIntegrationSummaryJson,
  toPayloadFieldJson,
} from "../presenters/alerts.js";
import { must } from "../presenters/must.js";
import { alertRoutes } from "./alert-management-alerts.js";
import { graceParam, pathInt, projectOf } from "./alert-params.js";

const BASE = "/projects/:id/alert_management";

/** A JSON document parameter (text or already-parsed JSON) → JSON text for the service. */
function jsonParam(p: Record<string, unknown>, name: string): string | undefined {
  const value = p[name];
  if (value === undefined) return undefined;
  if (value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "object") return JSON.stringify(value);
  throw paramInvalid(name);
}

/** `endpoint_identifier` and `token` are issued by Tocsin, never chosen by the client. */
function rejectIssuedFields(p: Record<string, unknown>) {
  for (const name of ["token", "endpoint_identifier"]) {
    if (p[name] !== undefined) {
      throw invalidArgument(
        "PARAM_NOT_ALLOWED",
        `${name} cannot be set: it is issued by Tocsin${name === "token" ? " (use reset_token for a new one)" : ""}`,
      );
    }
  }
}

/**
 * `rate_limit_per_minute`, clipped into int32 so that alert-service (which allows 0 to 1 000 000)
 * answers an out-of-range value with its 400 rather than the gRPC encoding failing.
 */
function rateLimitParam(p: Record<string, unknown>): number | undefined {
  const n = optionalInt(p, "rate_limit_per_minute");
  return n === undefined ? undefined : Math.max(-1, Math.min(n, 1_000_001));
}

/** `auto_resolve_minutes`: null (off) → 0; clipped into int32 so alert-service answers a bad value with 400. */
function autoResolveParam(p: Record<string, unknown>): number | undefined {
  if (p.auto_resolve_minutes === null) return 0;
  const n = optionalInt(p, "auto_resolve_minutes");
  return n === undefined ? undefined : Math.max(-1, Math.min(n, 10_081));
}

function httpFields(p: Record<string, unknown>) {
  rejectIssuedFields(p);
  return {
    autoResolveMinutes: autoResolveParam(p),
    rateLimitPerMinute: rateLimitParam(p),
    active: optionalBoolean(p, "active"),
    payloadExampleJson: jsonParam(p, "payload_example"),
    payloadAttributeMappingsJson: jsonParam(p, "payload_attribute_mappings"),
  };
}

/** Alert integrations, test alerts, alerts, incidents and alert settings (PRODUCT.md section 4). */
export function alertManagementRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { alert } = deps;

  router.get(`${BASE}/integrations`, async (req, res) => {
    const { integrations } = await alert.listIntegrations({ projectIdOrPath: projectOf(req) }, callContext(res));
    res.json(integrations.map(toIntegrationSummaryJson));
  });

  router.post(`${BASE}/http_integrations`, noStore, async (req, res) => {
    const p = readParams(req);
    if (p.name === undefined || p.name === null) throw paramMissing("name");
    const name = optionalString(p, "name") as string;
    const request = { projectIdOrPath: projectOf(req), name, ...httpFields(p) };
    const { integration } = await alert.createHttpIntegration(request, callContext(res));
    res.status(201).json(toIntegrationJson(must(integration, "integration")));
  });

  router.get(`${BASE}/http_integrations/:integration_id`, noStore, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), integrationId: pathInt(req, "integration_id") };
    const { integration } = await alert.getHttpIntegration(request, callContext(res));
    res.json(toIntegrationJson(must(integration, "integration")));
  });

  router.put(`${BASE}/http_integrations/:integration_id`, noStore, async (req, res) => {
    const p = readParams(req);
    const request = {
      projectIdOrPath: projectOf(req),
      integrationId: pathInt(req, "integration_id"),
      name: optionalString(p, "name"),
      ...httpFields(p),
    };
    const { integration, mappingCleared } = await alert.updateHttpIntegration(request, callContext(res));
    const json = toIntegrationJson(must(integration, "integration"));
    res.json(mappingCleared ? { ...json, mapping_cleared: true } : json);
  });

  router.delete(`${BASE}/http_integrations/:integration_id`, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), integrationId: pathInt(req, "integration_id") };
    await alert.deleteHttpIntegration(request, callContext(res));
    res.status(204).end();
  });

  router.post(`${BASE}/http_integrations/:integration_id/reset_token`, noStore, async (req, res) => {
    const request = {
      projectIdOrPath: projectOf(req),
      integrationId: pathInt(req, "integration_id"),
      gracePeriodSeconds: graceParam(readParams(req)),
    };
    const { integration } = await alert.resetHttpIntegrationToken(request, callContext(res));
    res.json(toIntegrationJson(must(integration, "integration")));
  });

  // Signed payloads (PRODUCT.md section 10): POST issues a secret (shown once), DELETE turns signing off.
  router.post(`${BASE}/http_integrations/:integration_id/signing_secret`, noStore, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), integrationId: pathInt(req, "integration_id"), enabled: true };
    const { signingSecret } = await alert.setHttpIntegrationSigningSecret(request, callContext(res));
    res.status(201).json({ signing_secret: signingSecret });
  });

  router.delete(`${BASE}/http_integrations/:integration_id/signing_secret`, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), integrationId: pathInt(req, "integration_id"), enabled: false };
    await alert.setHttpIntegrationSigningSecret(request, callContext(res));
    res.status(204).end();
  });

  router.post(`${BASE}/http_integrations/:integration_id/test_alert`, rawTextBody, async (req, res) => {
    const dryRun = optionalBoolean(req.query as Record<string, unknown>, "dry_run") ?? false;
    // The raw text: alert-service decides whether it is a valid payload.
    const payloadJson = typeof req.body === "string" ? req.body : "";
    const request = { projectIdOrPath: projectOf(req), integrationId: pathInt(req, "integration_id"), payloadJson, dryRun };
    const out = await alert.sendTestAlert(request, callContext(res));
    if (out.dryRun) res.json({ message: out.message, dry_run: toDryRunJson(out.dryRun) });
    else res.json({ message: out.message, alert: out.alert ? toAlertJson(out.alert) : null });
  });

  router.post(`${BASE}/payload_fields`, async (req, res) => {
    const p = readParams(req);
    const payloadExampleJson = jsonParam(p, "payload_example");
    if (!payloadExampleJson) throw paramMissing("payload_example");
    const { fields } = await alert.parsePayloadFields({ projectIdOrPath: projectOf(req), payloadExampleJson }, callContext(res));
    res.json(fields.map(toPayloadFieldJson));
  });

  router.get(`${BASE}/prometheus_integration`, noStore, async (req, res) => {
    const { integration } = await alert.getPrometheusIntegration({ projectIdOrPath: projectOf(req) }, callContext(res));
    res.json(toIntegrationJson(must(integration, "integration")));
  });

  router.put(`${BASE}/prometheus_integration`, noStore, async (req, res) => {
    const p = readParams(req);
    rejectIssuedFields(p);
    const request = {
      projectIdOrPath: projectOf(req),
      active: optionalBoolean(p, "active"),
      apiUrl: optionalString(p, "api_url"),
      rateLimitPerMinute: rateLimitParam(p),
      autoResolveMinutes: autoResolveParam(p),
    };
    const { integration } = await alert.updatePrometheusIntegration(request, callContext(res));
    res.json(toIntegrationJson(must(integration, "integration")));
  });

  router.post(`${BASE}/prometheus_integration/reset_token`, noStore, async (req, res) => {
    const request = { projectIdOrPath: projectOf(req), gracePeriodSeconds: graceParam(readParams(req)) };
    const { integration } = await alert.resetPrometheusIntegrationToken(request, callContext(res));
    res.json(toIntegrationJson(must(integration, "integration")));
  });

  router.get(`${BASE}/opsgenie_integration`, async (req, res) => {
    const { integration } = await alert.getOpsgenieIntegration({ projectIdOrPath: projectOf(req) }, callContext(res));
    res.json(toIntegrationJson(must(integration, "integration")));
  });

  router.put(`${BASE}/opsgenie_integration`, async (req, res) => {
    const p = readParams(req);
    const request = {
      projectIdOrPath: projectOf(req),
      active: optionalBoolean(p, "active"),
      apiUrl: optionalString(p, "api_url"),
    };
    const { integration } = await alert.updateOpsgenieIntegration(request, callContext(res));
    res.json(toIntegrationJson(must(integration, "integration")));
  });

  router.use(alertRoutes(deps));
  return router;
}
