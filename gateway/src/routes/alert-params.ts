import { paramInvalid } from "@tocsin/core";
import type { Request } from "express";

/** `:id` of the project, decoded (numeric id or full path). */
export const projectOf = (req: Request) => String(req.params.id);

/** A positive integer path parameter; anything else → 400 `{"error":"<name> is invalid"}`. */
export function pathInt(req: Request, name: string): number {
  const raw = String(req.params[name] ?? "");
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw paramInvalid(name);
  return Number(raw);
}
