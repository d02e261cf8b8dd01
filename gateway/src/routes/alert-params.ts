import { paramInvalid } from "@tocsin/core";
import type { Request } from "express";
import { optionalInt } from "../http/params.js";

/** `:id` of the project, decoded (numeric id or full path). */
export const projectOf = (req: Request) => String(req.params.id);

/** A positive integer path parameter; anything else → 400 `{"error":"<name> is invalid"}`. */
export function pathInt(req: Request, name: string): number {
  const raw = String(req.params[name] ?? "");
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw paramInvalid(name);
  return Number(raw);
}

/**
 * `grace_period_seconds` of a key or signing-secret rotation (default 0), clipped into int32 so
 * that the owning service answers an out-of-range value with its 400.
 */
export function graceParam(p: Record<string, unknown>): number {
  const n = optionalInt(p, "grace_period_seconds") ?? 0;
  return Math.max(-1, Math.min(n, 86_401));
}
