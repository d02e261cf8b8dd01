/** Plain records of the auth domain. Ids are positive integers from the store's sequences. */

export type PlanName = "free" | "premium" | "ultimate";

/** GitLab access levels. 0 = no access. */
export const ACCESS = { NONE: 0, GUEST: 10, REPORTER: 20, DEVELOPER: 30, MAINTAINER: 40, OWNER: 50 } as const;
export const VALID_LEVELS: readonly number[] = [10, 20, 30, 40, 50];

export type Scope = "api" | "read_api";
export const SCOPES: readonly Scope[] = ["api", "read_api"];

export interface UserRecord {
  id: number;
  username: string;
  name: string;
  /** Primary e-mail (always confirmed). */
  email: string;
  isAdmin: boolean;
  createdAt: Date;
  /** Id of the personal namespace (path = username). */
  namespaceId: number;
  /** A blocked user's tokens and sessions are refused and it cannot sign in. */
  blocked: boolean;
  /** `scrypt$…` (see passwords.ts); null = no password, no console sign-in. */
  passwordHash: string | null;
}

export interface EmailRecord {
  id: number;
  userId: number;
  email: string;
  confirmedAt: Date | null;
  primary: boolean;
}

export interface TokenRecord {
  id: number;
  userId: number;
  name: string;
  scopes: Scope[];
  /** `YYYY-MM-DD` (UTC); the token is invalid from that day on. Null = never expires. */
  expiresAt: string | null;
  revoked: boolean;
  /** SHA-256 of the plain token, lowercase hex. The plain token is never stored. */
  tokenHash: string;
  createdAt: Date;
}

export type NamespaceKind = "user" | "group";

/** A user's personal namespace or a group (a group's id is its namespace id). */
export interface NamespaceRecord {
  id: number;
  kind: NamespaceKind;
  name: string;
  path: string;
  fullPath: string;
  /** 0 for top-level namespaces. */
  parentId: number;
  /** Ancestor group ids, top-level first, parent last (empty for top-level). */
  ancestorIds: number[];
  /** Meaningful on top-level groups only; others carry "free". */
  plan: PlanName;
  /** The owning user of a personal namespace; 0 for groups. */
  ownerId: number;
  createdAt: Date;
}

export interface ProjectRecord {
  id: number;
  name: string;
  path: string;
  namespaceId: number;
  pathWithNamespace: string;
  createdAt: Date;
}

export type SourceType = "group" | "project";

export interface MembershipRecord {
  sourceType: SourceType;
  sourceId: number;
  userId: number;
  accessLevel: number;
}

export type IntegrationKind = "http" | "prometheus";

export interface IntegrationKeyRecord {
  integrationId: number;
  projectId: number;
  type: IntegrationKind;
  /** 16 lowercase hex characters, unique per project. */
  endpointIdentifier: string;
  /** The 32-hex key sealed with SecretBox (AES-256-GCM). */
  sealedToken: string;
  /** SHA-256 of the plain key, lowercase hex. */
  tokenSha256: string;
  active: boolean;
  createdAt: Date;
  /** SHA-256 of the key before the last reset, valid until previousTokenExpiresAt (rotation with overlap). */
  previousTokenSha256: string | null;
  previousTokenExpiresAt: Date | null;
  /** The signing secret (64 hex) sealed like the key; null while signed payloads are off. */
  sealedSigningSecret: string | null;
}

/** A console session. The plain token lives only in the browser's cookie. */
export interface SessionRecord {
  id: number;
  userId: number;
  /** SHA-256 of the plain session token, lowercase hex. */
  tokenHash: string;
  createdAt: Date;
  /** Last use, written at most once per SESSION_TOUCH_INTERVAL; the idle expiry counts from it. */
  lastSeenAt: Date;
}
