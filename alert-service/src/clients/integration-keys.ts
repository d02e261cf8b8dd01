import { internalContext as internal } from "@tocsin/core";
import type { AuthClient } from "@tocsin/grpc";
import { authV1 } from "@tocsin/proto";
import type { IntegrationKey, IntegrationKeys } from "../domain/integrations/ports.js";
import type { KeyedType } from "../domain/integrations/types.js";

const TYPE: Record<KeyedType, authV1.IntegrationType> = {
  http: authV1.IntegrationType.INTEGRATION_TYPE_HTTP,
  prometheus: authV1.IntegrationType.INTEGRATION_TYPE_PROMETHEUS,
};

function toKey(key: authV1.IntegrationKey | undefined): IntegrationKey {
  if (!key) throw new Error("auth-service answered without an integration key");
  return {
    integrationId: key.integrationId,
    endpointIdentifier: key.endpointIdentifier,
    token: key.token,
    active: key.active,
    signingEnabled: key.signingEnabled,
    ...(key.previousTokenExpiresAt ? { previousTokenExpiresAt: key.previousTokenExpiresAt } : {}),
  };
}

/** Integration credentials kept by auth-service, asked for as a trusted internal caller. */
export function createIntegrationKeys(auth: AuthClient): IntegrationKeys {
  return {
    async issue(projectId, integrationId, type, active, ctx) {
      const res = await auth.issueIntegrationKey({ projectId, integrationId, type: TYPE[type], active }, internal(ctx));
      return toKey(res.key);
    },
    async list(projectId, ctx) {
      const res = await auth.listIntegrationKeys({ projectId }, internal(ctx));
      return res.keys.map((k) => toKey(k));
    },
    async setActive(integrationId, active, ctx) {
      return toKey((await auth.setIntegrationKeyActive({ integrationId, active }, internal(ctx))).key);
    },
    async reset(integrationId, graceSeconds, ctx) {
      return toKey((await auth.resetIntegrationKey({ integrationId, gracePeriodSeconds: graceSeconds }, internal(ctx))).key);
    },
    async setSigningSecret(integrationId, enabled, ctx) {
      return (await auth.setIntegrationSigningSecret({ integrationId, enabled }, internal(ctx))).signingSecret;
    },
    async delete(integrationId, ctx) {
      await auth.deleteIntegrationKey({ integrationId }, internal(ctx));
    },
  };
}
