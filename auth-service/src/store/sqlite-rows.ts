import type {
  EmailRecord,
  IntegrationKeyRecord,
  IntegrationKind,
  MembershipRecord,
  NamespaceKind,
  NamespaceRecord,
  PlanName,
  ProjectRecord,
  Scope,
  SessionRecord,
  SourceType,
  TokenRecord,
  UserRecord,
} from "../domain/types.js";

/** Row → record mappers of the SQLite adapter (columns are snake_case). */
type Row = Record<string, string | number | null>;

const num = (v: unknown) => Number(v);
const str = (v: unknown) => String(v);
const date = (v: unknown) => new Date(String(v));

export const user = (r: Row): UserRecord => ({
  id: num(r.id),
  username: str(r.username),
  name: str(r.name),
  email: str(r.email),
  isAdmin: r.is_admin === 1,
  createdAt: date(r.created_at),
  namespaceId: num(r.namespace_id),
  blocked: r.blocked === 1,
  passwordHash: r.password_hash === null || r.password_hash === undefined ? null : str(r.password_hash),
});

export const session = (r: Row): SessionRecord => ({
  id: num(r.id),
  userId: num(r.user_id),
  tokenHash: str(r.token_hash),
  createdAt: date(r.created_at),
  lastSeenAt: date(r.last_seen_at),
});

export const email = (r: Row): EmailRecord => ({
  id: num(r.id),
  userId: num(r.user_id),
  email: str(r.email),
  confirmedAt: r.confirmed_at === null ? null : date(r.confirmed_at),
  primary: r.is_primary === 1,
});

export const token = (r: Row): TokenRecord => ({
  id: num(r.id),
  userId: num(r.user_id),
  name: str(r.name),
  scopes: JSON.parse(str(r.scopes)) as Scope[],
  expiresAt: r.expires_at === null ? null : str(r.expires_at),
  revoked: r.revoked === 1,
  tokenHash: str(r.token_hash),
  createdAt: date(r.created_at),
});

export const namespace = (r: Row): NamespaceRecord => ({
  id: num(r.id),
  kind: str(r.kind) as NamespaceKind,
  name: str(r.name),
  path: str(r.path),
  fullPath: str(r.full_path),
  parentId: num(r.parent_id),
  ancestorIds: JSON.parse(str(r.ancestor_ids)) as number[],
  plan: str(r.plan) as PlanName,
  ownerId: num(r.owner_id),
  createdAt: date(r.created_at),
});

export const project = (r: Row): ProjectRecord => ({
  id: num(r.id),
  name: str(r.name),
  path: str(r.path),
  namespaceId: num(r.namespace_id),
  pathWithNamespace: str(r.path_with_namespace),
  createdAt: date(r.created_at),
});

export const membership = (r: Row): MembershipRecord => ({
  sourceType: str(r.source_type) as SourceType,
  sourceId: num(r.source_id),
  userId: num(r.user_id),
  accessLevel: num(r.access_level),
});

export const key = (r: Row): IntegrationKeyRecord => ({
  integrationId: num(r.integration_id),
  projectId: num(r.project_id),
  type: str(r.type) as IntegrationKind,
  endpointIdentifier: str(r.endpoint_identifier),
  sealedToken: str(r.sealed_token),
  tokenSha256: str(r.token_sha256),
  active: r.active === 1,
  createdAt: date(r.created_at),
  previousTokenSha256: r.previous_token_sha256 ? str(r.previous_token_sha256) : null,
  previousTokenExpiresAt: r.previous_token_expires_at ? date(r.previous_token_expires_at) : null,
  sealedSigningSecret: r.sealed_signing_secret ? str(r.sealed_signing_secret) : null,
});
