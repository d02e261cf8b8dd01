import type { authV1 } from "@tocsin/proto";
import type { Request } from "express";
import { paramValueInvalid, requiredInt } from "../http/params.js";

const ACCESS_LEVELS = [10, 20, 30, 40, 50];

/** `:id` of a project or group: a numeric id or a URL-encoded full path, passed on decoded. */
export function idOrPath(req: Request): string {
  return String(req.params.id);
}

/** `user_id` and `access_level` (10, 20, 30, 40 or 50) of a membership request. */
export function accessLevelParam(p: Record<string, unknown>): { userId: number; accessLevel: authV1.AccessLevel } {
  const userId = requiredInt(p, "user_id");
  const accessLevel = requiredInt(p, "access_level");
  if (!ACCESS_LEVELS.includes(accessLevel)) throw paramValueInvalid("access_level");
  return { userId, accessLevel: accessLevel as authV1.AccessLevel };
}
