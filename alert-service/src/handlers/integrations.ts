import { invalidArgument } from "@tocsin/core";
import type { ServiceHandlers } from "@tocsin/grpc";
import type { alertV1 } from "@tocsin/proto";
import type { IntegrationView } from "../domain/integrations/types.js";
import type { IntegrationsUseCases } from "../domain/integrations/use-cases.js";

type Def = typeof alertV1.AlertServiceService;

/** The integration-management RPCs of AlertService. */
export type IntegrationHandlers = Pick<
  ServiceHandlers<Def>,
  | "listIntegrations"
  | "createHttpIntegration"
  | "getHttpIntegration"
  | "updateHttpIntegration"
  | "deleteHttpIntegration"
  | "resetHttpIntegrationToken"
  | "setHttpIntegrationSigningSecret"
  | "getPrometheusIntegration"
  | "updatePrometheusIntegration"
  | "resetPrometheusIntegrationToken"
  | "getOpsgenieIntegration"
  | "updateOpsgenieIntegration"
  | "parsePayloadFields"
>;

function toIntegrationMessage(view: IntegrationView): alertV1.Integration {
  return {
    id: view.id,
    name: view.name,
    type: view.type,
    active: view.active,
    url: view.url,
    token: view.token,
    endpointIdentifier: view.endpointIdentifier,
    payloadExampleJson: view.payloadExample,
    payloadAttributeMappingsJson: view.mapping ? JSON.stringify(view.mapping) : "{}",
    apiUrl: view.apiUrl,
    rateLimitPerMinute: view.rateLimitPerMinute ?? 0,
    tokenLastUsedAt: view.tokenLastUsedAt ?? undefined,
    previousTokenExpiresAt: view.previousTokenExpiresAt ?? undefined,
    signingEnabled: view.signingEnabled,
    ...(view.autoResolveMinutes !== null ? { autoResolveMinutes: view.autoResolveMinutes } : {}),
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
  };
}

function project(req: { projectIdOrPath: string }): string {
  const value = req.projectIdOrPath.trim();
  if (!value) throw invalidArgument("PARAM_MISSING", "id is missing");
  return value;
}

export function integrationHandlers(m: IntegrationsUseCases): IntegrationHandlers {
  const one = (view: IntegrationView) => ({ integration: toIntegrationMessage(view) });
  return {
    async listIntegrations(req, ctx) {
      const list = await m.list(project(req), ctx);
      return {
        integrations: list.map(({ rateLimitPerMinute, ...rest }) => ({
          ...rest,
          ...(rateLimitPerMinute === null ? {} : { rateLimitPerMinute }),
        })),
      };
    },
    async createHttpIntegration(req, ctx) {
      const {
        name,
        active,
        payloadExampleJson,
        payloadAttributeMappingsJson: mappingJson,
        rateLimitPerMinute,
        autoResolveMinutes,
      } = req;
      const input = { name, active, payloadExampleJson, mappingJson, rateLimitPerMinute, autoResolveMinutes };
      return one(await m.createHttp(project(req), input, ctx));
    },
    async getHttpIntegration(req, ctx) {
      return one(await m.getHttp(project(req), req.integrationId, ctx));
    },
    async updateHttpIntegration(req, ctx) {
      const {
        name,
        active,
        payloadExampleJson,
        payloadAttributeMappingsJson: mappingJson,
        rateLimitPerMinute,
        autoResolveMinutes,
      } = req;
      const input = { name, active, payloadExampleJson, mappingJson, rateLimitPerMinute, autoResolveMinutes };
      const res = await m.updateHttp(project(req), req.integrationId, input, ctx);
      return { integration: toIntegrationMessage(res.integration), mappingCleared: res.mappingCleared };
    },
    async deleteHttpIntegration(req, ctx) {
      await m.deleteHttp(project(req), req.integrationId, ctx);
      return {};
    },
    async resetHttpIntegrationToken(req, ctx) {
      return one(await m.resetHttpToken(project(req), req.integrationId, req.gracePeriodSeconds ?? 0, ctx));
    },
    async setHttpIntegrationSigningSecret(req, ctx) {
      return { signingSecret: await m.setHttpSigningSecret(project(req), req.integrationId, req.enabled, ctx) };
    },
    async getPrometheusIntegration(req, ctx) {
      return one(await m.getPrometheus(project(req), ctx));
    },
    async updatePrometheusIntegration(req, ctx) {
      const { active, apiUrl, rateLimitPerMinute, autoResolveMinutes } = req;
      const input = { active, apiUrl, rateLimitPerMinute, autoResolveMinutes };
      return one(await m.updatePrometheus(project(req), input, ctx));
    },
    async resetPrometheusIntegrationToken(req, ctx) {
      return one(await m.resetPrometheusToken(project(req), req.gracePeriodSeconds ?? 0, ctx));
    },
    async getOpsgenieIntegration(req, ctx) {
      return one(await m.getOpsgenie(project(req), ctx));
    },
    async updateOpsgenieIntegration(req, ctx) {
      return one(await m.updateOpsgenie(project(req), { active: req.active, apiUrl: req.apiUrl }, ctx));
    },
    async parsePayloadFields(req, ctx) {
      const fields = await m.payloadFields(project(req), req.payloadExampleJson, ctx);
      return { fields: fields.map((f) => ({ pathJson: JSON.stringify(f.path), label: f.label, type: f.type })) };
    },
  };
}
