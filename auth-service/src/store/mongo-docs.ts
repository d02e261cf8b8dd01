import type { Collection } from "mongodb";
import type {
  EmailRecord,
  IntegrationKeyRecord,
  MembershipRecord,
  NamespaceRecord,
  ProjectRecord,
  SessionRecord,
  TokenRecord,
  UserRecord,
} from "../domain/types.js";
import { MONGO_INDEX } from "./duplicates.js";

/** Document shapes of the MongoDB adapter: records with `_id` and lowercase look-up keys. */
/** `blocked` and `passwordHash` may be absent in documents written before they existed. */
export type UserDoc = Omit<UserRecord, "id" | "blocked" | "passwordHash"> & {
  _id: number;
  usernameLower: string;
  blocked?: boolean;
  passwordHash?: string | null;
};
export type SessionDoc = Omit<SessionRecord, "id"> & { _id: number };
interface SignInFailureDoc {
  loginKey: string;
  at: Date;
}
export type EmailDoc = Omit<EmailRecord, "id"> & { _id: number; emailLower: string };
export type TokenDoc = Omit<TokenRecord, "id"> & { _id: number };
export type NamespaceDoc = Omit<NamespaceRecord, "id"> & { _id: number; fullPathLower: string };
export type ProjectDoc = Omit<ProjectRecord, "id"> & { _id: number; pathLower: string };
export type MemberDoc = MembershipRecord & { _id: string };
export type KeyDoc = Omit<IntegrationKeyRecord, "integrationId"> & { _id: number };

export interface Docs {
  users: Collection<UserDoc>;
  emails: Collection<EmailDoc>;
  tokens: Collection<TokenDoc>;
  namespaces: Collection<NamespaceDoc>;
  projects: Collection<ProjectDoc>;
  memberships: Collection<MemberDoc>;
  keys: Collection<KeyDoc>;
  sessions: Collection<SessionDoc>;
  signInFailures: Collection<SignInFailureDoc>;
}

/** Unique indexes carry the rules; their names are how duplicates are recognised. */
export async function createMongoIndexes(c: Docs): Promise<void> {
  await Promise.all([
    c.users.createIndex({ usernameLower: 1 }, { unique: true, name: MONGO_INDEX.username }),
    c.emails.createIndex({ emailLower: 1 }, { unique: true, name: MONGO_INDEX.email }),
    c.emails.createIndex({ userId: 1 }, { name: "by_user" }),
    c.tokens.createIndex({ tokenHash: 1 }, { unique: true, name: MONGO_INDEX.token }),
    c.tokens.createIndex({ userId: 1, name: 1 }, { name: "by_user_name" }),
    c.namespaces.createIndex({ fullPathLower: 1 }, { unique: true, name: MONGO_INDEX.path }),
    c.namespaces.createIndex({ ancestorIds: 1 }, { name: "by_ancestor" }),
    c.projects.createIndex({ pathLower: 1 }, { unique: true, name: MONGO_INDEX.path }),
    c.projects.createIndex({ namespaceId: 1 }, { name: "by_namespace" }),
    c.memberships.createIndex({ userId: 1 }, { name: "by_user" }),
    c.memberships.createIndex({ sourceType: 1, sourceId: 1 }, { name: "by_source" }),
    c.keys.createIndex({ projectId: 1, endpointIdentifier: 1 }, { unique: true, name: MONGO_INDEX.endpoint }),
    c.keys.createIndex({ projectId: 1, createdAt: 1 }, { name: "by_project" }),
    c.sessions.createIndex({ tokenHash: 1 }, { unique: true, name: "uniq_session_token_hash" }),
    c.sessions.createIndex({ userId: 1 }, { name: "by_user" }),
    c.sessions.createIndex({ lastSeenAt: 1 }, { name: "by_last_seen" }),
    c.signInFailures.createIndex({ loginKey: 1, at: 1 }, { name: "by_login_at" }),
    c.signInFailures.createIndex({ at: 1 }, { name: "by_at" }),
  ]);
}

export const fromDoc = {
  user: ({ _id, usernameLower: _, ...d }: UserDoc): UserRecord => ({
    ...d,
    id: _id,
    blocked: d.blocked ?? false,
    passwordHash: d.passwordHash ?? null,
  }),
  session: ({ _id, ...d }: SessionDoc): SessionRecord => ({ ...d, id: _id }),
  email: ({ _id, emailLower: _, ...d }: EmailDoc): EmailRecord => ({ ...d, id: _id, confirmedAt: d.confirmedAt ?? null }),
  token: ({ _id, ...d }: TokenDoc): TokenRecord => ({ ...d, id: _id, expiresAt: d.expiresAt ?? null }),
  namespace: ({ _id, fullPathLower: _, ...d }: NamespaceDoc): NamespaceRecord => ({ ...d, id: _id }),
  project: ({ _id, pathLower: _, ...d }: ProjectDoc): ProjectRecord => ({ ...d, id: _id }),
  membership: (d: MemberDoc): MembershipRecord => ({
    sourceType: d.sourceType,
    sourceId: d.sourceId,
    userId: d.userId,
    accessLevel: d.accessLevel,
  }),
  key: ({ _id, ...d }: KeyDoc): IntegrationKeyRecord => ({
    ...d,
    integrationId: _id,
    // Absent on documents written before key rotation with overlap.
    previousTokenSha256: d.previousTokenSha256 ?? null,
    previousTokenExpiresAt: d.previousTokenExpiresAt ?? null,
    sealedSigningSecret: d.sealedSigningSecret ?? null,
  }),
};
