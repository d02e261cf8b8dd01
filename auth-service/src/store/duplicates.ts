import type { AppError } from "@tocsin/core";
import { isDuplicateKey } from "@tocsin/store";
import { emailTaken, endpointTaken, integrationTaken, pathTaken, tokenTaken, usernameTaken } from "../domain/errors.js";

/** The unique rules of the store, named alike in both adapters. */
export type UniqueRule = "username" | "email" | "path" | "token" | "integration" | "endpoint";

function duplicateFor(rule: UniqueRule): AppError {
  switch (rule) {
    case "username":
      return usernameTaken();
    case "email":
      return emailTaken();
    case "path":
      return pathTaken();
    case "token":
      return tokenTaken();
    case "integration":
      return integrationTaken();
    case "endpoint":
      return endpointTaken();
  }
}

const SQLITE_RULES: [string, UniqueRule][] = [
  ["users.username_lower", "username"],
  ["emails.email_lower", "email"],
  ["namespaces.full_path_lower", "path"],
  ["projects.path_lower", "path"],
  ["tokens.token_hash", "token"],
  ["integration_keys.integration_id", "integration"],
  ["integration_keys.project_id", "endpoint"],
];

/** The rule a better-sqlite3 UNIQUE failure broke, or null for any other error. */
function sqliteDuplicate(err: unknown): UniqueRule | null {
  if (!(err instanceof Error) || !isDuplicateKey(err)) return null;
  for (const [column, rule] of SQLITE_RULES) if (err.message.includes(column)) return rule;
  return null;
}

/** Index names of the MongoDB adapter. */
export const MONGO_INDEX: Record<UniqueRule, string> = {
  username: "uniq_username",
  email: "uniq_email",
  path: "uniq_path",
  token: "uniq_token_hash",
  integration: "_id_",
  endpoint: "uniq_endpoint",
};

/**
 * Runs an insert, turning E11000 into the ALREADY_EXISTS of `rule`. FerretDB's duplicate-key
 * errors name neither the index nor the key, so each call site says which rule it can break.
 */
export async function guardMongo<T>(fn: () => Promise<T>, rule: UniqueRule | (() => Promise<UniqueRule>)): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    throw duplicateFor(typeof rule === "function" ? await rule() : rule);
  }
}

/** Runs `fn`, turning a UNIQUE failure into the matching ALREADY_EXISTS (renamed by `rename`). */
export function guardSqlite<T>(fn: () => T, rename: Partial<Record<UniqueRule, UniqueRule>> = {}): T {
  try {
    return fn();
  } catch (err) {
    const rule = sqliteDuplicate(err);
    if (rule) throw duplicateFor(rename[rule] ?? rule);
    throw err;
  }
}
