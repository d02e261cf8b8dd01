import { MongoSequences } from "@tocsin/store";
import { type Db, MongoClient } from "mongodb";
import type {
  AuthStore,
  KeyPatch,
  NewEmail,
  NewNamespace,
  NewProject,
  NewToken,
  NewUser,
  ProjectScope,
  UserPatch,
} from "../domain/ports.js";
import type {
  EmailRecord,
  IntegrationKeyRecord,
  MembershipRecord,
  NamespaceRecord,
  PlanName,
  ProjectRecord,
  SourceType,
  TokenRecord,
  UserRecord,
} from "../domain/types.js";
import { guardMongo } from "./duplicates.js";
import { createMongoUser } from "./mongo-create-user.js";
import { createMongoIndexes, type Docs, fromDoc, type UserDoc } from "./mongo-docs.js";
import * as keys from "./mongo-integration-keys.js";
import * as memberships from "./mongo-memberships.js";
import { MongoSessionStore } from "./mongo-session-store.js";

/**
 * AuthStore on MongoDB (FerretDB-compatible subset: no transactions, no aggregation). Ids come
 * from a `counters` collection; uniqueness from unique indexes.
 */
export class MongoAuthStore implements AuthStore {
  private readonly sequences: MongoSequences;
  readonly sessions: MongoSessionStore;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    private readonly c: Docs,
  ) {
    this.sequences = new MongoSequences(db);
    this.sessions = new MongoSessionStore(c, (name) => this.nextId(name));
  }

  static async connect(url: string, dbName: string): Promise<MongoAuthStore> {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
    try {
      const db = client.db(dbName);
      const c: Docs = {
        users: db.collection("users"),
        emails: db.collection("emails"),
        tokens: db.collection("tokens"),
        namespaces: db.collection("namespaces"),
        projects: db.collection("projects"),
        memberships: db.collection("memberships"),
        keys: db.collection("integration_keys"),
        sessions: db.collection("sessions"),
        signInFailures: db.collection("sign_in_failures"),
      };
      await createMongoIndexes(c);
      return new MongoAuthStore(client, db, c);
    } catch (err) {
      await client.close();
      throw err;
    }
  }

  /** Drops the whole database (tests). */
  async drop(): Promise<void> {
    await this.db.dropDatabase();
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /**
   * A number no other replica holds: FerretDB's unlocked `$inc` can give two processes the same
   * one, so it is owned only once its claim document is inserted (see MongoSequences).
   */
  private nextId(name: string): Promise<number> {
    return this.sequences.reserveBlock(name, 1);
  }

  async createUser(input: NewUser): Promise<UserRecord> {
    return createMongoUser(this.c, (name) => this.nextId(name), input);
  }

  async getUser(id: number): Promise<UserRecord | null> {
    const doc = await this.c.users.findOne({ _id: id });
    return doc ? fromDoc.user(doc) : null;
  }

  async getUsers(ids: number[]): Promise<UserRecord[]> {
    if (ids.length === 0) return [];
    return (
      await this.c.users
        .find({ _id: { $in: ids } })
        .sort({ _id: 1 })
        .toArray()
    ).map(fromDoc.user);
  }

  async findUserByUsername(username: string): Promise<UserRecord | null> {
    const doc = await this.c.users.findOne({ usernameLower: username.toLowerCase() });
    return doc ? fromDoc.user(doc) : null;
  }

  async findUserByConfirmedEmail(email: string): Promise<UserRecord | null> {
    const found = await this.c.emails.findOne({ emailLower: email.toLowerCase() });
    return found?.confirmedAt ? this.getUser(found.userId) : null;
  }

  async listUsers(): Promise<UserRecord[]> {
    return (await this.c.users.find({}).sort({ _id: 1 }).toArray()).map(fromDoc.user);
  }

  async updateUser(id: number, patch: UserPatch): Promise<UserRecord | null> {
    const set: Partial<UserDoc> = {};
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.isAdmin !== undefined) set.isAdmin = patch.isAdmin;
    if (patch.blocked !== undefined) set.blocked = patch.blocked;
    if (patch.passwordHash !== undefined) set.passwordHash = patch.passwordHash;
    if (Object.keys(set).length === 0) return this.getUser(id);
    const doc = await this.c.users.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: "after" });
    return doc ? fromDoc.user(doc) : null;
  }

  async addEmail(input: NewEmail): Promise<EmailRecord> {
    const id = await this.nextId("emails");
    await guardMongo(() => this.c.emails.insertOne({ _id: id, ...input, emailLower: input.email.toLowerCase() }), "email");
    return { ...input, id };
  }

  async listEmails(userId: number): Promise<EmailRecord[]> {
    const docs = await this.c.emails.find({ userId }).sort({ _id: 1 }).toArray();
    return docs.map(fromDoc.email).sort((a, b) => Number(b.primary) - Number(a.primary));
  }

  async insertToken(input: NewToken): Promise<TokenRecord> {
    const id = await this.nextId("tokens");
    await guardMongo(() => this.c.tokens.insertOne({ _id: id, ...input, scopes: [...input.scopes] }), "token");
    return { ...input, id };
  }

  async getToken(id: number): Promise<TokenRecord | null> {
    const doc = await this.c.tokens.findOne({ _id: id });
    return doc ? fromDoc.token(doc) : null;
  }

  async findTokenByHash(tokenHash: string): Promise<TokenRecord | null> {
    const doc = await this.c.tokens.findOne({ tokenHash });
    return doc ? fromDoc.token(doc) : null;
  }

  async listTokensByName(userId: number, name: string): Promise<TokenRecord[]> {
    return (await this.c.tokens.find({ userId, name }).sort({ _id: 1 }).toArray()).map(fromDoc.token);
  }

  async listTokensOfUser(userId: number): Promise<TokenRecord[]> {
    return (await this.c.tokens.find({ userId }).sort({ _id: -1 }).toArray()).map(fromDoc.token);
  }

  async setTokenRevoked(id: number, revoked: boolean): Promise<TokenRecord | null> {
    const doc = await this.c.tokens.findOneAndUpdate({ _id: id }, { $set: { revoked } }, { returnDocument: "after" });
    return doc ? fromDoc.token(doc) : null;
  }

  async insertNamespace(input: NewNamespace): Promise<NamespaceRecord> {
    const id = await this.nextId("namespaces");
    await guardMongo(
      () =>
        this.c.namespaces.insertOne({
          _id: id,
          ...input,
          ancestorIds: [...input.ancestorIds],
          fullPathLower: input.fullPath.toLowerCase(),
        }),
      "path",
    );
    return { ...input, id };
  }

  async getNamespace(id: number): Promise<NamespaceRecord | null> {
    const doc = await this.c.namespaces.findOne({ _id: id });
    return doc ? fromDoc.namespace(doc) : null;
  }

  async getNamespaces(ids: number[]): Promise<NamespaceRecord[]> {
    if (ids.length === 0) return [];
    return (
      await this.c.namespaces
        .find({ _id: { $in: ids } })
        .sort({ _id: 1 })
        .toArray()
    ).map(fromDoc.namespace);
  }

  async findNamespaceByFullPath(fullPath: string): Promise<NamespaceRecord | null> {
    const doc = await this.c.namespaces.findOne({ fullPathLower: fullPath.toLowerCase() });
    return doc ? fromDoc.namespace(doc) : null;
  }

  async listDescendantGroups(groupIds: number[]): Promise<NamespaceRecord[]> {
    if (groupIds.length === 0) return [];
    const docs = await this.c.namespaces
      .find({ kind: "group", ancestorIds: { $in: groupIds } })
      .sort({ _id: 1 })
      .toArray();
    return docs.map(fromDoc.namespace);
  }

  async setNamespacePlan(id: number, plan: PlanName): Promise<NamespaceRecord | null> {
    const doc = await this.c.namespaces.findOneAndUpdate({ _id: id }, { $set: { plan } }, { returnDocument: "after" });
    return doc ? fromDoc.namespace(doc) : null;
  }

  async listGroups(): Promise<NamespaceRecord[]> {
    return (await this.c.namespaces.find({ kind: "group" }).sort({ _id: 1 }).toArray()).map(fromDoc.namespace);
  }

  async insertProject(input: NewProject): Promise<ProjectRecord> {
    const id = await this.nextId("projects");
    await guardMongo(
      () => this.c.projects.insertOne({ _id: id, ...input, pathLower: input.pathWithNamespace.toLowerCase() }),
      "path",
    );
    return { ...input, id };
  }

  async getProject(id: number): Promise<ProjectRecord | null> {
    const doc = await this.c.projects.findOne({ _id: id });
    return doc ? fromDoc.project(doc) : null;
  }

  async findProjectByPath(pathWithNamespace: string): Promise<ProjectRecord | null> {
    const doc = await this.c.projects.findOne({ pathLower: pathWithNamespace.toLowerCase() });
    return doc ? fromDoc.project(doc) : null;
  }

  async listProjects(scope: ProjectScope): Promise<ProjectRecord[]> {
    if (scope !== "all" && scope.ids.length + scope.namespaceIds.length === 0) return [];
    const filter = scope === "all" ? {} : { $or: [{ _id: { $in: scope.ids } }, { namespaceId: { $in: scope.namespaceIds } }] };
    return (await this.c.projects.find(filter).sort({ _id: 1 }).toArray()).map(fromDoc.project);
  }

  async upsertMembership(m: MembershipRecord): Promise<void> {
    return memberships.upsert(this.c.memberships, m);
  }

  async listMembershipsOfUser(userId: number): Promise<MembershipRecord[]> {
    return memberships.listOfUser(this.c.memberships, userId);
  }

  async listMembershipsOfSources(sources: { type: SourceType; id: number }[]): Promise<MembershipRecord[]> {
    return memberships.listOfSources(this.c.memberships, sources);
  }

  async insertIntegrationKey(input: IntegrationKeyRecord): Promise<IntegrationKeyRecord> {
    return keys.insert(this.c.keys, input);
  }

  async getIntegrationKey(integrationId: number): Promise<IntegrationKeyRecord | null> {
    return keys.get(this.c.keys, integrationId);
  }

  async listIntegrationKeys(projectId: number): Promise<IntegrationKeyRecord[]> {
    return keys.list(this.c.keys, projectId);
  }

  async findIntegrationKeyByEndpoint(projectId: number, endpointIdentifier: string): Promise<IntegrationKeyRecord | null> {
    return keys.findByEndpoint(this.c.keys, projectId, endpointIdentifier);
  }

  async updateIntegrationKey(integrationId: number, patch: KeyPatch): Promise<IntegrationKeyRecord | null> {
    return keys.update(this.c.keys, integrationId, patch);
  }

  async deleteIntegrationKey(integrationId: number): Promise<IntegrationKeyRecord | null> {
    return keys.remove(this.c.keys, integrationId);
  }
}
