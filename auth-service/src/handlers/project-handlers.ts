import type { ServiceHandlers } from "@tocsin/grpc";
import type { authV1 } from "@tocsin/proto";
import { valueInvalid } from "../domain/validation.js";
import { kindFromProto, toKey, toMember, toProject, toResolution, typeFromProto } from "./mappers.js";
import type { UseCases } from "./use-cases.js";

type Def = typeof authV1.AuthServiceService;
type ProjectKeys =
  | "createProject"
  | "getProject"
  | "addProjectMember"
  | "listProjectMembers"
  | "issueIntegrationKey"
  | "listIntegrationKeys"
  | "setIntegrationKeyActive"
  | "resetIntegrationKey"
  | "deleteIntegrationKey"
  | "setIntegrationSigningSecret"
  | "resolveIntegrationEndpoint";

/** Projects, memberships and integration keys. */
export function projectHandlers(u: UseCases): Pick<ServiceHandlers<Def>, ProjectKeys> {
  return {
    createProject: async (req, ctx) => ({ project: toProject(await u.projects.createProject(ctx, req)) }),
    getProject: async (req, ctx) => ({ project: toProject(await u.projects.getProject(ctx, req.idOrPath)) }),
    addProjectMember: async (req, ctx) => ({
      member: toMember(await u.projects.addMember(ctx, req.projectIdOrPath, req.userId, req.accessLevel)),
    }),
    listProjectMembers: async (req, ctx) => ({ members: (await u.projects.listMembers(ctx, req.projectId)).map(toMember) }),
    issueIntegrationKey: async (req, ctx) => ({
      key: toKey(await u.keys.issue(ctx, { ...req, type: typeFromProto(req.type) })),
    }),
    listIntegrationKeys: async (req, ctx) => ({ keys: (await u.keys.list(ctx, req.projectId)).map(toKey) }),
    setIntegrationKeyActive: async (req, ctx) => ({ key: toKey(await u.keys.setActive(ctx, req.integrationId, req.active)) }),
    resetIntegrationKey: async (req, ctx) => ({
      key: toKey(await u.keys.reset(ctx, req.integrationId, req.gracePeriodSeconds ?? 0)),
    }),
    setIntegrationSigningSecret: async (req, ctx) => {
      const { secret, key } = await u.keys.setSigningSecret(ctx, req.integrationId, req.enabled);
      return { signingSecret: secret, key: toKey(key) };
    },
    deleteIntegrationKey: async (req, ctx) => {
      await u.keys.delete(ctx, req.integrationId);
      return {};
    },
    resolveIntegrationEndpoint: async (req) => {
      const kind = kindFromProto(req.kind);
      if (!kind) throw valueInvalid("kind");
      return toResolution(await u.keys.resolve(req.projectFullPath, kind, req.endpointIdentifier));
    },
  };
}
