import type {
  EmailRecord,
  IntegrationKeyRecord,
  MembershipRecord,
  NamespaceRecord,
  PlanName,
  ProjectRecord,
  SessionRecord,
  SourceType,
  TokenRecord,
  UserRecord,
} from "./types.js";

export interface NewUser {
  username: string;
  name: string;
  email: string;
  isAdmin: boolean;
  createdAt: Date;
  /** Default null (no password). */
  passwordHash?: string | null;
}

export interface UserPatch {
  name?: string;
  isAdmin?: boolean;
  blocked?: boolean;
  passwordHash?: string | null;
}

export type NewSession = Omit<SessionRecord, "id">;

/** Which projects to list: all of them, or those with one of `ids` or in one of `namespaceIds`. */
export type ProjectScope = "all" | { ids: number[]; namespaceIds: number[] };

export type NewNamespace = Omit<NamespaceRecord, "id">;
export type NewProject = Omit<ProjectRecord, "id">;
export type NewToken = Omit<TokenRecord, "id">;
export type NewEmail = Omit<EmailRecord, "id">;

export interface KeyPatch {
  active?: boolean;
  sealedToken?: string;
  tokenSha256?: string;
  previousTokenSha256?: string | null;
  previousTokenExpiresAt?: Date | null;
  sealedSigningSecret?: string | null;
}

/**
 * The persistence port of auth-service. Uniqueness is enforced by the database; a violated
 * rule surfaces as AppError ALREADY_EXISTS with reason USERNAME_TAKEN, EMAIL_TAKEN, PATH_TAKEN,
 * TOKEN_TAKEN, INTEGRATION_TAKEN or ENDPOINT_TAKEN. Path and username look-ups are
 * case-insensitive. Getters return null when nothing matches.
 */
export interface AuthStore {
  /** Answers once the database is reachable (for health). */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Console sessions and failed sign-ins, in the same database. */
  readonly sessions: SessionStore;

  /**
   * Creates the user, its confirmed primary e-mail and its personal namespace (path = username)
   * as one unit: on any conflict nothing remains.
   */
  createUser(input: NewUser): Promise<UserRecord>;
  getUser(id: number): Promise<UserRecord | null>;
  getUsers(ids: number[]): Promise<UserRecord[]>;
  findUserByUsername(username: string): Promise<UserRecord | null>;
  /** The owner of a confirmed e-mail address (case-insensitive). */
  findUserByConfirmedEmail(email: string): Promise<UserRecord | null>;
  /** Every user, by id. */
  listUsers(): Promise<UserRecord[]>;
  /** Applies the fields given; returns the updated record or null when unknown. */
  updateUser(id: number, patch: UserPatch): Promise<UserRecord | null>;

  addEmail(input: NewEmail): Promise<EmailRecord>;
  /** Every e-mail of a user, primary first, then by id. */
  listEmails(userId: number): Promise<EmailRecord[]>;

  insertToken(input: NewToken): Promise<TokenRecord>;
  getToken(id: number): Promise<TokenRecord | null>;
  findTokenByHash(tokenHash: string): Promise<TokenRecord | null>;
  listTokensByName(userId: number, name: string): Promise<TokenRecord[]>;
  /** Every token of a user, newest first. */
  listTokensOfUser(userId: number): Promise<TokenRecord[]>;
  /** Sets `revoked`; returns the updated record or null when unknown. */
  setTokenRevoked(id: number, revoked: boolean): Promise<TokenRecord | null>;

  insertNamespace(input: NewNamespace): Promise<NamespaceRecord>;
  getNamespace(id: number): Promise<NamespaceRecord | null>;
  getNamespaces(ids: number[]): Promise<NamespaceRecord[]>;
  findNamespaceByFullPath(fullPath: string): Promise<NamespaceRecord | null>;
  /** Groups having any of `groupIds` among their ancestors. */
  listDescendantGroups(groupIds: number[]): Promise<NamespaceRecord[]>;
  setNamespacePlan(id: number, plan: PlanName): Promise<NamespaceRecord | null>;
  /** Every group, by id. */
  listGroups(): Promise<NamespaceRecord[]>;

  insertProject(input: NewProject): Promise<ProjectRecord>;
  getProject(id: number): Promise<ProjectRecord | null>;
  findProjectByPath(pathWithNamespace: string): Promise<ProjectRecord | null>;
  /** The projects of `scope`, by id. */
  listProjects(scope: ProjectScope): Promise<ProjectRecord[]>;

  /** Inserts or updates the direct membership of (source, user). */
  upsertMembership(input: MembershipRecord): Promise<void>;
  listMembershipsOfUser(userId: number): Promise<MembershipRecord[]>;
  listMembershipsOfSources(sources: { type: SourceType; id: number }[]): Promise<MembershipRecord[]>;

  insertIntegrationKey(input: IntegrationKeyRecord): Promise<IntegrationKeyRecord>;
  getIntegrationKey(integrationId: number): Promise<IntegrationKeyRecord | null>;
  /** Keys of a project, oldest first (created_at, then integration id). */
  listIntegrationKeys(projectId: number): Promise<IntegrationKeyRecord[]>;
  findIntegrationKeyByEndpoint(projectId: number, endpointIdentifier: string): Promise<IntegrationKeyRecord | null>;
  updateIntegrationKey(integrationId: number, patch: KeyPatch): Promise<IntegrationKeyRecord | null>;
  /** Removes the key; returns what was removed, or null when there was nothing. */
  deleteIntegrationKey(integrationId: number): Promise<IntegrationKeyRecord | null>;
}

/** Console sessions and the failed sign-ins of the lockout (part of the AuthStore's database). */
export interface SessionStore {
  insertSession(input: NewSession): Promise<SessionRecord>;
  findSessionByHash(tokenHash: string): Promise<SessionRecord | null>;
  touchSession(id: number, lastSeenAt: Date): Promise<void>;
  /** Returns whether a session was removed. */
  deleteSession(id: number): Promise<boolean>;
  /** Removes the sessions last seen before `before` (idle ones nobody came back to); returns how many. */
  deleteSessionsIdleSince(before: Date): Promise<number>;
  /** Removes every session of the user; returns their ids. */
  deleteSessionsOfUser(userId: number): Promise<number[]>;

  /** Records a failed sign-in for `key`, forgetting every failure (of any key) before `forgetBefore`. */
  addSignInFailure(key: string, at: Date, forgetBefore: Date): Promise<void>;
  /** Times of the failures of `key` at or after `since`, oldest first. */
  listSignInFailures(key: string, since: Date): Promise<Date[]>;
  clearSignInFailures(key: string): Promise<void>;
}
