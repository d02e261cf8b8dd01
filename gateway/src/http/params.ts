import { AppError, paramInvalid, paramMissing } from "@tocsin/core";
import type { Request } from "express";

/**
 * GitLab reads parameters from the query string and from a JSON or form body alike. Body values
 * win over query values of the same name.
 */
export function readParams(req: Request): Record<string, unknown> {
  const query = (req.query ?? {}) as Record<string, unknown>;
  const body = req.body && typeof req.body === "object" && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
  return { ...query, ...body };
}

const TRUE = new Set(["true", "1", "yes", "on", "t", "y"]);
const FALSE = new Set(["false", "0", "no", "off", "f", "n"]);

/** Grape-style boolean coercion; anything else → 400 `{"error":"<name> is invalid"}`. */
export function parseBoolean(name: string, value: unknown): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "number" && (value === 0 || value === 1)) return value === 1;
  if (typeof value === "string") {
    const v = value.trim().toLowerCase();
    if (TRUE.has(v)) return true;
    if (FALSE.has(v)) return false;
  }
  throw paramInvalid(name);
}

export function optionalBoolean(params: Record<string, unknown>, name: string): boolean | undefined {
  const value = params[name];
  return value === undefined ? undefined : parseBoolean(name, value);
}

/** A string parameter; arrays/objects → 400 `<name> is invalid`. */
export function optionalString(params: Record<string, unknown>, name: string): string | undefined {
  const value = params[name];
  // JSON `null` means "not given", as in Grape.
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw paramInvalid(name);
}

/** A positive integer parameter (ids, pages); anything else → 400 `<name> is invalid`. */
export function optionalInt(params: Record<string, unknown>, name: string): number | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  const n =
    typeof value === "number"
      ? value
      : typeof value === "string" && /^-?\d{1,15}$/.test(value.trim())
        ? Number(value)
        : Number.NaN;
  if (!Number.isSafeInteger(n)) throw paramInvalid(name);
  return n;
}

/** `{"error":"<name> does not have a valid value"}` (Grape's `values:` check). */
export const paramValueInvalid = (name: string) =>
  new AppError("INVALID_ARGUMENT", "PARAM_VALUE_INVALID", `${name} does not have a valid value`);

/** A required string; absent or blank → 400 `<name> is missing`. */
export function requiredString(params: Record<string, unknown>, name: string): string {
  const value = optionalString(params, name);
  if (value === undefined || value.trim() === "") throw paramMissing(name);
  return value;
}

/** A required integer; absent or blank → `<name> is missing`, not an integer → `<name> is invalid`. */
export function requiredInt(params: Record<string, unknown>, name: string): number {
  const value = params[name];
  if (value === undefined || value === null || value === "") throw paramMissing(name);
  return optionalInt(params, name) as number;
}

/**
 * A list of strings: a JSON array, repeated query keys, `name[]` form keys, or one
 * comma-separated string.
 */
export function optionalStringArray(params: Record<string, unknown>, name: string): string[] | undefined {
  const value = params[name] ?? params[`${name}[]`];
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : undefined;
  if (!items?.every((v) => typeof v === "string")) throw paramInvalid(name);
  return (items as string[]).map((v) => v.trim()).filter((v) => v !== "");
}

/** A value that must be one of `allowed`; anything else → `<name> does not have a valid value`. */
export function optionalEnum<T extends string>(
  params: Record<string, unknown>,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const value = optionalString(params, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw paramValueInvalid(name);
  return value as T;
}

/** Comma-separated values each among `allowed` (`triggered,acknowledged`), joined again; an unknown one → `<name> is invalid`. */
export function optionalEnumList<T extends string>(
  params: Record<string, unknown>,
  name: string,
  allowed: readonly T[],
): string | undefined {
  const value = optionalString(params, name);
  if (value === undefined) return undefined;
  const parts = value.split(",").map((v) => v.trim());
  if (parts.some((v) => !(allowed as readonly string[]).includes(v))) throw paramValueInvalid(name);
  return parts.join(",");
}

/** A calendar date `YYYY-MM-DD` that exists; anything else → `<name> is invalid`. */
export function optionalDate(params: Record<string, unknown>, name: string): string | undefined {
  const value = optionalString(params, name);
  if (value === undefined || value === "") return undefined;
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00.000Z`) : undefined;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) throw paramInvalid(name);
  return value;
}
