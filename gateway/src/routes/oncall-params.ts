import { paramInvalid } from "@tocsin/core";
import type { oncallV1 } from "@tocsin/proto";
import { optionalInt, optionalString } from "../http/params.js";

/**
 * Request bodies of section 11 → OncallService messages. Only the form is checked here (types,
 * int32 range); settings-service owns every rule and answers its 400s.
 */

type Params = Record<string, unknown>;

/** An integer clipped into [-1, max + 1], so an out-of-range value reaches the service's 400. */
function clippedInt(p: Params, key: string, max: number, label = key): number | undefined {
  const n = optionalInt({ [label]: p[key] }, label);
  return n === undefined ? undefined : Math.max(-1, Math.min(n, max + 1));
}

function objectParam(p: Params, name: string): Params | null | undefined {
  const value = p[name];
  if (value === undefined || value === null) return value;
  if (typeof value !== "object" || Array.isArray(value)) throw paramInvalid(name);
  return value as Params;
}

function arrayParam(p: Params, name: string): unknown[] | undefined {
  const value = p[name];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw paramInvalid(name);
  return value;
}

/** `[{username}]` (GitLab's form) or plain usernames; undefined when not sent. */
function usernames(p: Params, name: string): oncallV1.Usernames | undefined {
  const list = arrayParam(p, name);
  if (!list) return undefined;
  const names = list.map((item) => {
    if (typeof item === "string") return item;
    if (item && typeof item === "object" && typeof (item as Params).username === "string")
      return (item as Params).username as string;
    throw paramInvalid(name);
  });
  return { usernames: names };
}

export function scheduleParams(p: Params) {
  return {
    name: optionalString(p, "name"),
    description: optionalString(p, "description"),
    timezone: optionalString(p, "timezone"),
  };
}

export function rotationParams(p: Params): oncallV1.RotationChange {
  const length = objectParam(p, "rotation_length");
  const period = objectParam(p, "active_period");
  return {
    name: optionalString(p, "name"),
    startsAt: optionalString(p, "starts_at"),
    // null clears ends_at (and active_period) on update.
    endsAt: p.ends_at === null ? "" : optionalString(p, "ends_at"),
    length: length ? clippedInt(length, "length", 1000, "rotation_length[length]") : undefined,
    unit: length ? optionalString(length, "unit") : undefined,
    activePeriod:
      period === null
        ? { startTime: "", endTime: "" }
        : period
          ? { startTime: optionalString(period, "start_time") ?? "", endTime: optionalString(period, "end_time") ?? "" }
          : undefined,
    participants: usernames(p, "participants"),
  };
}

export function overrideParams(p: Params) {
  return {
    username: optionalString(p, "username"),
    startsAt: optionalString(p, "starts_at"),
    endsAt: optionalString(p, "ends_at"),
  };
}

function ruleParams(item: unknown): oncallV1.EscalationRuleChange {
  if (!item || typeof item !== "object" || Array.isArray(item)) throw paramInvalid("rules");
  const r = item as Params;
  return {
    status: optionalString(r, "status") ?? "",
    elapsedTimeSeconds: clippedInt(r, "elapsed_time_seconds", 86_400, "rules[elapsed_time_seconds]") ?? -1,
    oncallScheduleIid: clippedInt(r, "oncall_schedule_iid", 2 ** 31, "rules[oncall_schedule_iid]"),
    username: optionalString(r, "username"),
  };
}

/** null turns repeating off (0 on the wire); a literal 0 or less goes as -1, for the service's 400. */
function repeatParam(p: Params): number | undefined {
  if (p.repeat_every_seconds === null) return 0;
  const n = clippedInt(p, "repeat_every_seconds", 86_400);
  return n === 0 ? -1 : n;
}

export function policyParams(p: Params): oncallV1.EscalationPolicyChange {
  return {
    name: optionalString(p, "name"),
    description: optionalString(p, "description"),
    rules: p.rules === undefined || p.rules === null ? undefined : { rules: (arrayParam(p, "rules") ?? []).map(ruleParams) },
    repeatEverySeconds: repeatParam(p),
    maxRepeats: clippedInt(p, "max_repeats", 9),
  };
}
