import { AppError, hasControlCharacter, invalidArgument, paramInvalid, paramMissing } from "@tocsin/core";
import { SCOPES, type Scope, VALID_LEVELS } from "./types.js";

const USERNAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const PATH_RE = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const BAD_ENDING = /(\.|\.git|\.atom)$/i;

const PATH_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";
const USERNAME_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";

/** Top-level paths that would shadow console and API addresses (PRODUCT.md section 8). */
const RESERVED_TOP_LEVEL_PATHS: readonly string[] = ["users", "admin", "api", "assets", "-", "metrics"];
const RESERVED_MESSAGE = `is reserved (${RESERVED_TOP_LEVEL_PATHS.join(", ")} cannot be top-level paths)`;

/** Rejects a top-level username or group path that is reserved (case-insensitive). */
export function rejectReserved(field: "username" | "path", value: string): string {
  if (RESERVED_TOP_LEVEL_PATHS.includes(value.toLowerCase())) {
    throw invalidArgument("RESERVED_PATH", `${field} ${value} ${RESERVED_MESSAGE}`, {
      [field]: [`${value} ${RESERVED_MESSAGE}`],
    });
  }
  return value;
}

export function requireText(value: string, param: string): string {
  const v = value.trim();
  if (!v) throw paramMissing(param);
  return v;
}

function fieldError(field: string, message: string): AppError {
  return invalidArgument(`${field.toUpperCase()}_INVALID`, `${field} ${message}`, { [field]: [message] });
}

export function validateUsername(username: string): string {
  const u = requireText(username, "username");
  if (u.length > 255) throw fieldError("username", "is too long (maximum is 255 characters)");
  if (!USERNAME_RE.test(u) || BAD_ENDING.test(u)) throw fieldError("username", USERNAME_MESSAGE);
  return u;
}

export function validateEmail(email: string): string {
  const e = requireText(email, "email");
  if (e.length > 255 || !EMAIL_RE.test(e)) throw fieldError("email", "is invalid");
  return e;
}

export function validateName(name: string): string {
  const n = requireText(name, "name");
  if (n.length > 255) throw fieldError("name", "is too long (maximum is 255 characters)");
  if (hasControlCharacter(n)) throw fieldError("name", "must not contain control characters (NUL, line breaks, tabs...)");
  return n;
}

/** Group and project paths. */
export function validatePath(path: string): string {
  const p = requireText(path, "path");
  if (p.length > 255) throw fieldError("path", "is too long (maximum is 255 characters)");
  if (!PATH_RE.test(p) || /\.(git|atom)$/i.test(p)) throw fieldError("path", PATH_MESSAGE);
  return p;
}

/** A project path from its name: lowercase, anything outside [a-z0-9_.-] becomes `-`. */
export function pathFromName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_.-]/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^-+|-+$/g, "");
}

export function valueInvalid(param: string): AppError {
  return new AppError("INVALID_ARGUMENT", "PARAM_VALUE_INVALID", `${param} does not have a valid value`);
}

export function validateScopes(scopes: string[]): Scope[] {
  const unique = [...new Set(scopes)];
  if (unique.length === 0 || unique.some((s) => !SCOPES.includes(s as Scope))) throw valueInvalid("scopes");
  return unique as Scope[];
}

/** `YYYY-MM-DD` (a real calendar date) or empty → null. */
export function validateExpiresAt(value: string): string | null {
  const v = value.trim();
  if (!v) return null;
  const m = DATE_RE.exec(v);
  if (!m) throw paramInvalid("expires_at");
  const d = new Date(`${v}T00:00:00.000Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v) throw paramInvalid("expires_at");
  return v;
}

/** True once the UTC calendar day `expiresAt` has begun. */
export function isExpired(expiresAt: string | null, now: Date): boolean {
  return expiresAt !== null && now.toISOString().slice(0, 10) >= expiresAt;
}

export function validateLevel(level: number): number {
  if (!VALID_LEVELS.includes(level)) throw valueInvalid("access_level");
  return level;
}
