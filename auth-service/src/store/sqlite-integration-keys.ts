import { prepared } from "@tocsin/store";
import type Database from "better-sqlite3";
import type { KeyPatch } from "../domain/ports.js";
import type { IntegrationKeyRecord } from "../domain/types.js";
import { guardSqlite } from "./duplicates.js";
import { many, one } from "./sqlite-queries.js";
import * as row from "./sqlite-rows.js";

/** Integration keys on SQLite (table `integration_keys`). */
type Db = Database.Database;

export async function insert(db: Db, input: IntegrationKeyRecord): Promise<IntegrationKeyRecord> {
  guardSqlite(() =>
    prepared(
      db,
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

export async function get(db: Db, integrationId: number): Promise<IntegrationKeyRecord | null> {
  return one(db, "SELECT * FROM integration_keys WHERE integration_id = ?", row.key, integrationId);
}

export async function list(db: Db, projectId: number): Promise<IntegrationKeyRecord[]> {
  return many(db, "SELECT * FROM integration_keys WHERE project_id = ? ORDER BY created_at, integration_id", row.key, projectId);
}

export async function findByEndpoint(
  db: Db,
  projectId: number,
  endpointIdentifier: string,
): Promise<IntegrationKeyRecord | null> {
  return one(
    db,
    "SELECT * FROM integration_keys WHERE project_id = ? AND endpoint_identifier = ?",
    row.key,
    projectId,
    endpointIdentifier,
  );
}

export async function update(db: Db, integrationId: number, patch: KeyPatch): Promise<IntegrationKeyRecord | null> {
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
    prepared(db, `UPDATE integration_keys SET ${sets} WHERE integration_id = ?`).run(...columns.map(([, v]) => v), integrationId);
  }
  return get(db, integrationId);
}

export async function remove(db: Db, integrationId: number): Promise<IntegrationKeyRecord | null> {
  const existing = await get(db, integrationId);
  if (existing) prepared(db, "DELETE FROM integration_keys WHERE integration_id = ?").run(integrationId);
  return existing;
}
