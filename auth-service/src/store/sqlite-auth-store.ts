import { openSqlite, prepared } from "@tocsin/store";
import type Database from "better-sqlite3";
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
import { guardSqlite } from "./duplicates.js";
import { insertUser } from "./sqlite-create-user.js";
import * as keys from "./sqlite-integration-keys.js";
import * as memberships from "./sqlite-memberships.js";
import * as query from "./sqlite-queries.js";
import * as row from "./sqlite-rows.js";
import { SQLITE_ADDED_COLUMNS, SQLITE_SCHEMA } from "./sqlite-schema.js";
import { SqliteSessionStore } from "./sqlite-session-store.js";

const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(",");

/** AuthStore on better-sqlite3: `${DATA_DIR}/auth.db` in WAL mode, or `:memory:`. */
export class SqliteAuthStore implements AuthStore {
  private readonly db: Database.Database;
  readonly sessions: SqliteSessionStore;

  constructor(file: string) {
    this.db = openSqlite(file);
    this.db.exec(SQLITE_SCHEMA);
    for (const [table, column, definition] of SQLITE_ADDED_COLUMNS) {
      const columns = this.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
      if (!columns.some((c) => c.name === column)) this.db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
    }
    this.sessions = new SqliteSessionStore(this.db);
  }

  async ping(): Promise<void> {
    this.stmt("SELECT 1").get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /** Statements are prepared once per SQL text (preparing costs more than running them). */
  private stmt(sql: string) {
    return prepared(this.db, sql);
  }

  private one<T>(sql: string, map: (r: never) => T, ...args: unknown[]): T | null {
    return query.one(this.db, sql, map, ...args);
  }

  private many<T>(sql: string, map: (r: never) => T, ...args: unknown[]): T[] {
    return query.many(this.db, sql, map, ...args);
  }

  async createUser(input: NewUser): Promise<UserRecord> {
    const id = insertUser(this.db, input);
    return (await this.getUser(id)) as UserRecord;
  }

  async getUser(id: number): Promise<UserRecord | null> {
    return this.one("SELECT * FROM users WHERE id = ?", row.user, id);
  }

  async getUsers(ids: number[]): Promise<UserRecord[]> {
    if (ids.length === 0) return [];
    return this.many(`SELECT * FROM users WHERE id IN (${placeholders(ids.length)}) ORDER BY id`, row.user, ...ids);
  }

  async findUserByUsername(username: string): Promise<UserRecord | null> {
    return this.one("SELECT * FROM users WHERE username_lower = ?", row.user, username.toLowerCase());
  }

  async findUserByConfirmedEmail(email: string): Promise<UserRecord | null> {
    return this.one(
      "SELECT u.* FROM users u JOIN emails e ON e.user_id = u.id WHERE e.email_lower = ? AND e.confirmed_at IS NOT NULL",
      row.user,
      email.toLowerCase(),
    );
  }

  async listUsers(): Promise<UserRecord[]> {
    return this.many("SELECT * FROM users ORDER BY id", row.user);
  }

  async updateUser(id: number, patch: UserPatch): Promise<UserRecord | null> {
    const columns: [string, unknown][] = [];
    if (patch.name !== undefined) columns.push(["name", patch.name]);
    if (patch.isAdmin !== undefined) columns.push(["is_admin", patch.isAdmin ? 1 : 0]);
    if (patch.blocked !== undefined) columns.push(["blocked", patch.blocked ? 1 : 0]);
    if (patch.passwordHash !== undefined) columns.push(["password_hash", patch.passwordHash]);
    if (columns.length) {
      const sets = columns.map(([c]) => `${c} = ?`).join(", ");
      this.stmt(`UPDATE users SET ${sets} WHERE id = ?`).run(...columns.map(([, v]) => v), id);
    }
    return this.getUser(id);
  }

  async addEmail(input: NewEmail): Promise<EmailRecord> {
    const res = guardSqlite(() =>
      this.stmt("INSERT INTO emails (user_id, email, email_lower, confirmed_at, is_primary) VALUES (?, ?, ?, ?, ?)").run(
        input.userId,
        input.email,
        input.email.toLowerCase(),
        input.confirmedAt?.toISOString() ?? null,
        input.primary ? 1 : 0,
      ),
    );
    return { ...input, id: Number(res.lastInsertRowid) };
  }

  async listEmails(userId: number): Promise<EmailRecord[]> {
    return this.many("SELECT * FROM emails WHERE user_id = ? ORDER BY is_primary DESC, id", row.email, userId);
  }

  async insertToken(input: NewToken): Promise<TokenRecord> {
    const res = guardSqlite(() =>
      this.stmt(
        "INSERT INTO tokens (user_id, name, scopes, expires_at, revoked, token_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ).run(
        input.userId,
        input.name,
        JSON.stringify(input.scopes),
        input.expiresAt,
        input.revoked ? 1 : 0,
        input.tokenHash,
        input.createdAt.toISOString(),
      ),
    );
    return { ...input, id: Number(res.lastInsertRowid) };
  }

  async getToken(id: number): Promise<TokenRecord | null> {
    return this.one("SELECT * FROM tokens WHERE id = ?", row.token, id);
  }

  async findTokenByHash(tokenHash: string): Promise<TokenRecord | null> {
    return this.one("SELECT * FROM tokens WHERE token_hash = ?", row.token, tokenHash);
  }

  async listTokensByName(userId: number, name: string): Promise<TokenRecord[]> {
    return this.many("SELECT * FROM tokens WHERE user_id = ? AND name = ? ORDER BY id", row.token, userId, name);
  }

  async listTokensOfUser(userId: number): Promise<TokenRecord[]> {
    return this.many("SELECT * FROM tokens WHERE user_id = ? ORDER BY id DESC", row.token, userId);
  }

  async setTokenRevoked(id: number, revoked: boolean): Promise<TokenRecord | null> {
    this.stmt("UPDATE tokens SET revoked = ? WHERE id = ?").run(revoked ? 1 : 0, id);
    return this.getToken(id);
  }

  async insertNamespace(input: NewNamespace): Promise<NamespaceRecord> {
    const res = guardSqlite(() =>
      this.stmt(
        `INSERT INTO namespaces (kind, name, path, full_path, full_path_lower, parent_id, ancestor_ids, plan, owner_id, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        input.kind,
        input.name,
        input.path,
        input.fullPath,
        input.fullPath.toLowerCase(),
        input.parentId,
        JSON.stringify(input.ancestorIds),
        input.plan,
        input.ownerId,
        input.createdAt.toISOString(),
      ),
    );
    return { ...input, id: Number(res.lastInsertRowid) };
  }

  async getNamespace(id: number): Promise<NamespaceRecord | null> {
    return this.one("SELECT * FROM namespaces WHERE id = ?", row.namespace, id);
  }

  async getNamespaces(ids: number[]): Promise<NamespaceRecord[]> {
    if (ids.length === 0) return [];
    return this.many(`SELECT * FROM namespaces WHERE id IN (${placeholders(ids.length)}) ORDER BY id`, row.namespace, ...ids);
  }

  async findNamespaceByFullPath(fullPath: string): Promise<NamespaceRecord | null> {
    return this.one("SELECT * FROM namespaces WHERE full_path_lower = ?", row.namespace, fullPath.toLowerCase());
  }

  async listDescendantGroups(groupIds: number[]): Promise<NamespaceRecord[]> {
    if (groupIds.length === 0) return [];
    return this.many(
      `SELECT * FROM namespaces n WHERE n.kind = 'group' AND EXISTS
         (SELECT 1 FROM json_each(n.ancestor_ids) a WHERE a.value IN (${placeholders(groupIds.length)})) ORDER BY n.id`,
      row.namespace,
      ...groupIds,
    );
  }

  async setNamespacePlan(id: number, plan: PlanName): Promise<NamespaceRecord | null> {
    this.stmt("UPDATE namespaces SET plan = ? WHERE id = ?").run(plan, id);
    return this.getNamespace(id);
  }

  async listGroups(): Promise<NamespaceRecord[]> {
    return this.many("SELECT * FROM namespaces WHERE kind = 'group' ORDER BY id", row.namespace);
  }

  async insertProject(input: NewProject): Promise<ProjectRecord> {
    const res = guardSqlite(() =>
      this.stmt(
        "INSERT INTO projects (name, path, namespace_id, path_with_namespace, path_lower, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      ).run(
        input.name,
        input.path,
        input.namespaceId,
        input.pathWithNamespace,
        input.pathWithNamespace.toLowerCase(),
        input.createdAt.toISOString(),
      ),
    );
    return { ...input, id: Number(res.lastInsertRowid) };
  }

  async getProject(id: number): Promise<ProjectRecord | null> {
    return this.one("SELECT * FROM projects WHERE id = ?", row.project, id);
  }

  async findProjectByPath(pathWithNamespace: string): Promise<ProjectRecord | null> {
    return this.one("SELECT * FROM projects WHERE path_lower = ?", row.project, pathWithNamespace.toLowerCase());
  }

  async listProjects(scope: ProjectScope): Promise<ProjectRecord[]> {
    if (scope === "all") return this.many("SELECT * FROM projects ORDER BY id", row.project);
    if (scope.ids.length + scope.namespaceIds.length === 0) return [];
    return this.many(
      `SELECT * FROM projects WHERE id IN (SELECT value FROM json_each(?)) OR namespace_id IN (SELECT value FROM json_each(?)) ORDER BY id`,
      row.project,
      JSON.stringify(scope.ids),
      JSON.stringify(scope.namespaceIds),
    );
  }

  async upsertMembership(m: MembershipRecord): Promise<void> {
    return memberships.upsert(this.db, m);
  }

  async listMembershipsOfUser(userId: number): Promise<MembershipRecord[]> {
    return memberships.listOfUser(this.db, userId);
  }

  async listMembershipsOfSources(sources: { type: SourceType; id: number }[]): Promise<MembershipRecord[]> {
    return memberships.listOfSources(this.db, sources);
  }

  async insertIntegrationKey(input: IntegrationKeyRecord): Promise<IntegrationKeyRecord> {
    return keys.insert(this.db, input);
  }

  async getIntegrationKey(integrationId: number): Promise<IntegrationKeyRecord | null> {
    return keys.get(this.db, integrationId);
  }

  async listIntegrationKeys(projectId: number): Promise<IntegrationKeyRecord[]> {
    return keys.list(this.db, projectId);
  }

  async findIntegrationKeyByEndpoint(projectId: number, endpointIdentifier: string): Promise<IntegrationKeyRecord | null> {
    return keys.findByEndpoint(this.db, projectId, endpointIdentifier);
  }

  async updateIntegrationKey(integrationId: number, patch: KeyPatch): Promise<IntegrationKeyRecord | null> {
    return keys.update(this.db, integrationId, patch);
  }

  async deleteIntegrationKey(integrationId: number): Promise<IntegrationKeyRecord | null> {
    return keys.remove(this.db, integrationId);
  }
}
