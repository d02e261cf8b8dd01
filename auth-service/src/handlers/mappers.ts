import { type Page, toPage as toCorePage } from "@tocsin/core";
import { authV1, planFromName, planNameOrNull } from "@tocsin/proto";
import type { GroupView, ProjectView } from "../domain/directory.js";
import type { EndpointKindName, EndpointResolution, KeyView } from "../domain/integration-keys.js";
import type { MemberView } from "../domain/projects.js";
import type { ActiveSession } from "../domain/sessions.js";
import type { TokenPrincipal } from "../domain/tokens.js";
import type { EmailRecord, IntegrationKind, PlanName, TokenRecord, UserRecord } from "../domain/types.js";
import { isExpired } from "../domain/validation.js";

const { IntegrationType, EndpointKind, EndpointState } = authV1;

const planToProto = (plan: PlanName): authV1.Plan => planFromName(plan);

/** null for PLAN_UNSPECIFIED or unknown values. */
export const planFromProto = (plan: authV1.Plan): PlanName | null => planNameOrNull(plan);

export function typeFromProto(type: authV1.IntegrationType): IntegrationKind | null {
  if (type === IntegrationType.INTEGRATION_TYPE_HTTP) return "http";
  if (type === IntegrationType.INTEGRATION_TYPE_PROMETHEUS) return "prometheus";
  return null;
}

const typeToProto = (type: IntegrationKind | null): authV1.IntegrationType =>
  type === "http"
    ? IntegrationType.INTEGRATION_TYPE_HTTP
    : type === "prometheus"
      ? IntegrationType.INTEGRATION_TYPE_PROMETHEUS
      : IntegrationType.INTEGRATION_TYPE_UNSPECIFIED;

export function kindFromProto(kind: authV1.EndpointKind): EndpointKindName | null {
  if (kind === EndpointKind.ENDPOINT_KIND_HTTP) return "http";
  if (kind === EndpointKind.ENDPOINT_KIND_HTTP_LEGACY) return "http_legacy";
  if (kind === EndpointKind.ENDPOINT_KIND_PROMETHEUS) return "prometheus";
  return null;
}

const STATE_TO_PROTO = {
  not_found: EndpointState.ENDPOINT_STATE_NOT_FOUND,
  inactive: EndpointState.ENDPOINT_STATE_INACTIVE,
  unavailable: EndpointState.ENDPOINT_STATE_UNAVAILABLE,
  active: EndpointState.ENDPOINT_STATE_ACTIVE,
} as const;

const levelToProto = (level: number): authV1.AccessLevel => level as authV1.AccessLevel;

export const toPage = (p: authV1.PageRequest | undefined): Page => toCorePage(p?.page, p?.perPage);

export const toUser = (u: UserRecord): authV1.User => ({
  id: u.id,
  username: u.username,
  name: u.name,
  email: u.email,
  isAdmin: u.isAdmin,
  createdAt: u.createdAt,
  namespaceId: u.namespaceId,
  blocked: u.blocked,
  hasPassword: u.passwordHash !== null,
});

export const toEmail = (e: EmailRecord): authV1.Email => ({
  id: e.id,
  email: e.email,
  confirmedAt: e.confirmedAt ?? undefined,
  primary: e.primary,
});

export const toPrincipal = (p: TokenPrincipal): authV1.Principal => ({
  ...p,
  scopes: [...p.scopes],
  expiresAt: p.expiresAt ?? "",
  sessionId: 0,
});

/** A session acts with every right of its user (scope `api`). */
export const toSessionPrincipal = (s: ActiveSession): authV1.Principal => ({
  userId: s.user.id,
  username: s.user.username,
  isAdmin: s.user.isAdmin,
  scopes: ["api"],
  tokenId: 0,
  expiresAt: "",
  sessionId: s.session.id,
});

export const toToken = (t: TokenRecord, now: Date, plain = ""): authV1.PersonalAccessToken => ({
  id: t.id,
  userId: t.userId,
  name: t.name,
  scopes: [...t.scopes],
  expiresAt: t.expiresAt ?? "",
  active: !t.revoked && !isExpired(t.expiresAt, now),
  revoked: t.revoked,
  createdAt: t.createdAt,
  token: plain,
});

export const toGroup = (v: GroupView): authV1.Group => ({
  id: v.group.id,
  name: v.group.name,
  path: v.group.path,
  fullPath: v.group.fullPath,
  parentId: v.group.parentId,
  plan: planToProto(v.plan),
  createdAt: v.group.createdAt,
  accessLevel: levelToProto(v.accessLevel),
});

export const toProject = (v: ProjectView): authV1.Project => ({
  id: v.project.id,
  name: v.project.name,
  path: v.project.path,
  pathWithNamespace: v.project.pathWithNamespace,
  namespace: { id: v.namespace.id, fullPath: v.namespace.fullPath, kind: v.namespace.kind },
  tier: planToProto(v.tier),
  ancestorGroupIds: v.ancestorGroupIds,
  createdAt: v.project.createdAt,
  accessLevel: levelToProto(v.accessLevel),
});

export const toMember = (m: MemberView): authV1.Member => ({ user: toUser(m.user), accessLevel: levelToProto(m.accessLevel) });

export const toKey = (k: KeyView): authV1.IntegrationKey => ({
  integrationId: k.record.integrationId,
  projectId: k.record.projectId,
  type: typeToProto(k.record.type),
  endpointIdentifier: k.record.endpointIdentifier,
  token: k.token,
  active: k.record.active,
  createdAt: k.record.createdAt,
  previousTokenExpiresAt: k.record.previousTokenExpiresAt ?? undefined,
  signingEnabled: k.record.sealedSigningSecret !== null,
});

export const toResolution = (r: EndpointResolution): authV1.ResolveIntegrationEndpointResponse => ({
  state: STATE_TO_PROTO[r.state],
  projectId: r.projectId,
  integrationId: r.integrationId,
  type: typeToProto(r.type),
  tokenSha256: r.tokenSha256 ? Buffer.from(r.tokenSha256, "hex") : Buffer.alloc(0),
  tier: planToProto(r.tier),
  ...(r.previousTokenSha256 ? { previousTokenSha256: Buffer.from(r.previousTokenSha256, "hex") } : {}),
  previousTokenExpiresAt: r.previousTokenExpiresAt,
  signingSecret: r.signingSecret ?? "",
});
