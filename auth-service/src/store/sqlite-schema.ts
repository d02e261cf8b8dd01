/** Tables of the embedded store. Uniqueness lives in UNIQUE constraints; dates are ISO strings. */
export const SQLITE_SCHEMA = `
CREATE TABLE IF NOT EXISTS namespaces (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  path TEXT NOT NULL,
  full_path TEXT NOT NULL,
  full_path_lower TEXT NOT NULL UNIQUE,
  parent_id INTEGER NOT NULL DEFAULT 0,
  ancestor_ids TEXT NOT NULL DEFAULT '[]',
  plan TEXT NOT NULL DEFAULT 'free',
  owner_id INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS namespaces_parent ON namespaces(parent_id);

CREATE TABLE IF NOT EXISTS users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL,
  username_lower TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  is_admin INTEGER NOT NULL DEFAULT 0,
  namespace_id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  blocked INTEGER NOT NULL DEFAULT 0,
  password_hash TEXT
);

CREATE TABLE IF NOT EXISTS emails (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL,
  email TEXT NOT NULL,
  email_lower TEXT NOT NULL UNIQUE,
  confirmed_at TEXT,
  is_primary INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS emails_user ON emails(user_id);

CREATE TABLE IF NOT EXISTS tokens (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  scopes TEXT NOT NULL,
  expires_at TEXT,
  revoked INTEGER NOT NULL DEFAULT 0,
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tokens_user_name ON tokens(user_id, name);

CREATE TABLE IF NOT EXISTS projects (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  path TEXT NOT NULL,
  namespace_id INTEGER NOT NULL,
  path_with_namespace TEXT NOT NULL,
  path_lower TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS projects_namespace ON projects(namespace_id);

CREATE TABLE IF NOT EXISTS memberships (
  source_type TEXT NOT NULL,
  source_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  access_level INTEGER NOT NULL,
  PRIMARY KEY (source_type, source_id, user_id)
);
CREATE INDEX IF NOT EXISTS memberships_user ON memberships(user_id);

CREATE TABLE IF NOT EXISTS integration_keys (
  integration_id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL,
  type TEXT NOT NULL,
  endpoint_identifier TEXT NOT NULL,
  sealed_token TEXT NOT NULL,
  token_sha256 TEXT NOT NULL,
  active INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (project_id, endpoint_identifier)
);

CREATE TABLE IF NOT EXISTS sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions(user_id);
CREATE INDEX IF NOT EXISTS sessions_last_seen ON sessions(last_seen_at);

CREATE TABLE IF NOT EXISTS sign_in_failures (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  login_key TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sign_in_failures_key ON sign_in_failures(login_key, at);
CREATE INDEX IF NOT EXISTS sign_in_failures_at ON sign_in_failures(at);
`;

/** Columns added after the first release: [table, column, definition], added when missing. */
export const SQLITE_ADDED_COLUMNS: [string, string, string][] = [
  ["users", "blocked", "INTEGER NOT NULL DEFAULT 0"],
  ["users", "password_hash", "TEXT"],
  ["integration_keys", "previous_token_sha256", "TEXT"],
  ["integration_keys", "previous_token_expires_at", "TEXT"],
  ["integration_keys", "sealed_signing_secret", "TEXT"],
];
