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
import { duplicateFor, sqliteDuplicate, type UniqueRule } from "./duplicates.js";
import * as row from "./sqlite-rows.js";
import { SQLITE_ADDED_COLUMNS, SQLITE_SCHEMA } from "./sqlite-schema.js";
import { SqliteSessionStore } from "./sqlite-session-store.js";

/** Runs `fn`, turning a UNIQUE failure into the matching ALREADY_EXISTS (renamed by `rename`). */
function guard<T>(fn: () => T, rename: Partial<Record<UniqueRule, UniqueRule>> = {}): T {
  try {
    return fn();
  } catch (err) {
    const rule = sqliteDuplicate(err);
    if (rule) throw duplicateFor(rename[rule] ?? rule);
    throw err;
  }
}

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
    const r = this.stmt(sql).get(...args) as never;
    return r === undefined ? null : map(r);
  }

  private many<T>(sql: string, map: (r: never) => T, ...args: unknown[]): T[] {
    return (this.stmt(sql).all(...args) as never[]).map(map);
  }

  async createUser(input: NewUser): Promise<UserRecord> {
    const created = input.createdAt.toISOString();
    const tx = this.db.transaction(() => {
      const ns = this.stmt(
        "INSERT INTO namespaces (kind, name, path, full_path, full_path_lower, created_at) VALUES ('user', ?, ?, ?, ?, ?)",
      ).run(input.name, input.username, input.username, input.username.toLowerCase(), created);
      const user = this.stmt(
        `INSERT INTO users (username, username_lower, name, email, is_admin, namespace_id, created_at, password_hash)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        input.username,
        input.username.toLowerCase(),
        input.name,
        input.email,
        input.isAdmin ? 1 : 0,
        ns.lastInsertRowid,
        created,
        input.passwordHash ?? null,
      );
      this.stmt("UPDATE namespaces SET owner_id = ? WHERE id = ?").run(user.lastInsertRowid, ns.lastInsertRowid);
      this.stmt("INSERT INTO emails (user_id, email, email_lower, confirmed_at, is_primary) VALUES (?, ?, ?, ?, 1)").run(
        user.lastInsertRowid,
        input.email,
        input.email.toLowerCase(),
        created,
      );
      return Number(user.lastInsertRowid);
    });
    const id = guard(() => tx(), { path: "username" });
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
    const res = guard(() =>
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
    const res = guard(() =>
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
    const res = guard(() =>
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
    const res = guard(() =>
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
    this.stmt(
      `INSERT INTO memberships (source_type, source_id, user_id, access_level) VALUES (?, ?, ?, ?)
         ON CONFLICT (source_type, source_id, user_id) DO UPDATE SET access_level = excluded.access_level`,
    ).run(m.sourceType, m.sourceId, m.userId, m.accessLevel);
  }

  async listMembershipsOfUser(userId: number): Promise<MembershipRecord[]> {
    return this.many("SELECT * FROM memberships WHERE user_id = ?", row.membership, userId);
  }

  async listMembershipsOfSources(sources: { type: SourceType; id: number }[]): Promise<MembershipRecord[]> {
    if (sources.length === 0) return [];
    const where = sources.map(() => "(source_type = ? AND source_id = ?)").join(" OR ");
    return this.many(`SELECT * FROM memberships WHERE ${where}`, row.membership, ...sources.flatMap((s) => [s.type, s.id]));
  }

  async insertIntegrationKey(input: IntegrationKeyRecord): Promise<IntegrationKeyRecord> {
    guard(() =>
      this.stmt(
        `INSERT INTO integration_keys (integration_id, project_id, type, endpoint_identifier, sealed_token, token_sha256, active, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        input.integrationId,
        input.projectId,
        input.type,
        input.endpointIdentifier,
        input.sealedToken,
        input.tokenSha256,
        input.active ? 1 : 0,
        input.createdAt.toISOString(),
      ),
    );
    return { ...input };
  }

  async getIntegrationKey(integrationId: number): Promise<IntegrationKeyRecord | null> {
    return this.one("SELECT * FROM integration_keys WHERE integration_id = ?", row.key, integrationId);
  }

  async listIntegrationKeys(projectId: number): Promise<IntegrationKeyRecord[]> {
    return this.many(
      "SELECT * FROM integration_keys WHERE project_id = ? ORDER BY created_at, integration_id",
      row.key,
      projectId,
    );
  }

  async findIntegrationKeyByEndpoint(projectId: number, endpointIdentifier: string): Promise<IntegrationKeyRecord | null> {
    return this.one(
      "SELECT * FROM integration_keys WHERE project_id = ? AND endpoint_identifier = ?",
      row.key,
      projectId,
      endpointIdentifier,
    );
  }

  async updateIntegrationKey(integrationId: number, patch: KeyPatch): Promise<IntegrationKeyRecord | null> {
    const columns: [string, unknown][] = [];
    if (patch.active !== undefined) columns.push(["active", patch.active ? 1 : 0]);
    if (patch.sealedToken !== undefined) columns.push(["sealed_token", patch.sealedToken]);
    if (patch.tokenSha256 !== undefined) columns.push(["token_sha256", patch.tokenSha256]);
    if (patch.previousTokenSha256 !== undefined) columns.push(["previous_token_sha256", patch.previousTokenSha256]);
    if (patch.sealedSigningSecret !== undefined) columns.push(["sealed_signing_secret", patch.sealedSigningSecret]);
    if (patch.previousTokenExpiresAt !== undefined)
      columns.push(["previous_token_expires_at", patch.previousTokenExpiresAt?.toISOString() ?? null]);
    if (columns.length) {
      const sets = columns.map(([c]) => `${c} = ?`).join(", ");
      this.stmt(`UPDATE integration_keys SET ${sets} WHERE integration_id = ?`).run(...columns.map(([, v]) => v), integrationId);
    }
    return this.getIntegrationKey(integrationId);
  }

  async deleteIntegrationKey(integrationId: number): Promise<IntegrationKeyRecord | null> {
    const existing = await this.getIntegrationKey(integrationId);
    if (existing) this.stmt("DELETE FROM integration_keys WHERE integration_id = ?").run(integrationId);
    return existing;
  }
}
