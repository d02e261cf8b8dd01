import { type CallContext, type Clock, internalContext as internal, type Logger } from "@tocsin/core";
import type { IntegrationDirectory, ProjectAccess } from "../ports.js";
import { ACCESS } from "../types.js";
import type { IntegrationsDeps } from "./deps.js";
import { createIntegrationDirectory } from "./directory.js";
import {
  type CreateHttpInput,
  createHttpIntegration,
  deleteHttpIntegration,
  getHttpIntegration,
  resetHttpIntegrationToken,
  setHttpIntegrationSigningSecret,
  type UpdateHttpInput,
  updateHttpIntegration,
} from "./http-integrations.js";
import { extractPayloadFields, parsePayloadExample } from "./payload.js";
import type { IntegrationKeys, IntegrationStore } from "./ports.js";
import { customMappingUnavailable, premium } from "./rules.js";
import {
  getOpsgenieIntegration,
  getPrometheusIntegration,
  resetPrometheusToken,
  type SingletonInput,
  updateOpsgenieIntegration,
  updatePrometheusIntegration,
} from "./singletons.js";
import type { IntegrationSummary, IntegrationView, PayloadField } from "./types.js";
import { createUsageRecorder, type UsageRecorder } from "./usage.js";

export interface IntegrationsModuleOptions {
  store: IntegrationStore;
  keys: IntegrationKeys;
  projects: ProjectAccess;
  clock: Clock;
  logger: Logger;
  externalUrl: string;
  /** WEBHOOK_RATE_LIMIT_PER_MINUTE (default 6000). */
  defaultRateLimitPerMinute?: number;
}

/** The integration management use-cases, and the directory processing reads integrations from. */
export interface IntegrationsUseCases {
  list(idOrPath: string, ctx: CallContext): Promise<IntegrationSummary[]>;
  createHttp(idOrPath: string, input: CreateHttpInput, ctx: CallContext): Promise<IntegrationView>;
  getHttp(idOrPath: string, id: number, ctx: CallContext): Promise<IntegrationView>;
  updateHttp(
    idOrPath: string,
    id: number,
    input: UpdateHttpInput,
    ctx: CallContext,
  ): Promise<{ integration: IntegrationView; mappingCleared: boolean }>;
  deleteHttp(idOrPath: string, id: number, ctx: CallContext): Promise<void>;
  setHttpSigningSecret(idOrPath: string, id: number, enabled: boolean, ctx: CallContext): Promise<string>;
  resetHttpToken(idOrPath: string, id: number, graceSeconds: number, ctx: CallContext): Promise<IntegrationView>;
  getPrometheus(idOrPath: string, ctx: CallContext): Promise<IntegrationView>;
  updatePrometheus(idOrPath: string, input: SingletonInput, ctx: CallContext): Promise<IntegrationView>;
  resetPrometheusToken(idOrPath: string, graceSeconds: number, ctx: CallContext): Promise<IntegrationView>;
  getOpsgenie(idOrPath: string, ctx: CallContext): Promise<IntegrationView>;
  updateOpsgenie(idOrPath: string, input: SingletonInput, ctx: CallContext): Promise<IntegrationView>;
  payloadFields(idOrPath: string, payloadExampleJson: string, ctx: CallContext): Promise<PayloadField[]>;
  directory: IntegrationDirectory;
  /** token_last_used_at, written at most once a minute per integration. */
  usage: UsageRecorder;
}

export function createIntegrationsUseCases(options: IntegrationsModuleOptions): IntegrationsUseCases {
  const directory = createIntegrationDirectory(options.store, options.clock);
  const deps: IntegrationsDeps = {
    ...options,
    defaultRateLimitPerMinute: options.defaultRateLimitPerMinute ?? 6000,
    changed: () => directory.invalidate(),
  };
  return {
    async list(idOrPath, ctx) {
      const project = await deps.projects.require(idOrPath, ACCESS.maintainer, ctx);
      const [records, keys] = await Promise.all([deps.store.list(project.id), deps.keys.list(project.id, internal(ctx))]);
      const byId = new Map(keys.map((k) => [k.integrationId, k]));
      // http/prometheus records without a key are mid-create or mid-delete: not shown.
      return records
        .filter((r) => r.type === "opsgenie" || byId.has(r.id))
        .map((r) => ({
          id: r.id,
          name: r.name,
          type: r.type,
          active: r.type === "opsgenie" ? r.active : (byId.get(r.id)?.active ?? false),
          rateLimitPerMinute: r.type === "opsgenie" ? null : (r.rateLimitPerMinute ?? deps.defaultRateLimitPerMinute),
        }));
    },
    createHttp: (idOrPath, input, ctx) => createHttpIntegration(deps, idOrPath, input, ctx),
    getHttp: (idOrPath, id, ctx) => getHttpIntegration(deps, idOrPath, id, ctx),
    updateHttp: (idOrPath, id, input, ctx) => updateHttpIntegration(deps, idOrPath, id, input, ctx),
    deleteHttp: (idOrPath, id, ctx) => deleteHttpIntegration(deps, idOrPath, id, ctx),
    setHttpSigningSecret: (idOrPath, id, enabled, ctx) => setHttpIntegrationSigningSecret(deps, idOrPath, id, enabled, ctx),
    resetHttpToken: (idOrPath, id, graceSeconds, ctx) => resetHttpIntegrationToken(deps, idOrPath, id, graceSeconds, ctx),
    getPrometheus: (idOrPath, ctx) => getPrometheusIntegration(deps, idOrPath, ctx),
    updatePrometheus: (idOrPath, input, ctx) => updatePrometheusIntegration(deps, idOrPath, input, ctx),
    resetPrometheusToken: (idOrPath, graceSeconds, ctx) => resetPrometheusToken(deps, idOrPath, graceSeconds, ctx),
    getOpsgenie: (idOrPath, ctx) => getOpsgenieIntegration(deps, idOrPath, ctx),
    updateOpsgenie: (idOrPath, input, ctx) => updateOpsgenieIntegration(deps, idOrPath, input, ctx),
    async payloadFields(idOrPath, payloadExampleJson, ctx) {
      const project = await deps.projects.require(idOrPath, ACCESS.maintainer, ctx);
      if (!premium(project)) throw customMappingUnavailable();
      return extractPayloadFields(parsePayloadExample(payloadExampleJson));
    },
    directory,
    usage: createUsageRecorder(options.store, options.clock, options.logger),
  };
}
