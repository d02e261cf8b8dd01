import { fieldError } from "./errors.js";
import type { RuleStatus } from "./types.js";

/** A rule as asked for: a schedule iid or a username (resolved to a member by the use-case). */
export interface RuleDraft {
  status: string;
  elapsedTimeSeconds: number;
  oncallScheduleIid: number | undefined;
  username: string | undefined;
}

export interface PolicyDraft {
  name: string;
  description: string;
  rules: RuleDraft[];
  repeatEverySeconds: number | null;
  maxRepeats: number;
}

const STATUSES: readonly RuleStatus[] = ["acknowledged", "resolved"];
const DAY_SECONDS = 86_400;

const isIntIn = (n: number, min: number, max: number) => Number.isInteger(n) && n >= min && n <= max;

function checkRule(rule: RuleDraft, i: number): void {
  const field = `rules[${i}]`;
  if (!STATUSES.includes(rule.status as RuleStatus)) throw fieldError(field, "status must be acknowledged or resolved");
  if (!isIntIn(rule.elapsedTimeSeconds, 0, DAY_SECONDS)) {
    throw fieldError(field, "elapsed_time_seconds must be an integer from 0 to 86400");
  }
  if ((rule.oncallScheduleIid === undefined) === (rule.username === undefined)) {
    throw fieldError(field, "must have exactly one of oncall_schedule_iid and username");
  }
}

/** Section 11's policy rules, all checked before anything is written. */
export function checkPolicy(draft: PolicyDraft): PolicyDraft {
  if (draft.name.trim().length < 1) throw fieldError("name", "can't be blank");
  if (draft.name.length > 72) throw fieldError("name", "is too long (maximum is 72 characters)");
  if (draft.description.length > 160) throw fieldError("description", "is too long (maximum is 160 characters)");
  if (draft.rules.length < 1 || draft.rules.length > 10) throw fieldError("rules", "must have from 1 to 10 rules");
  draft.rules.forEach(checkRule);
  const keys = draft.rules.map((r) => `${r.oncallScheduleIid ?? ""}|${r.username ?? ""}|${r.status}|${r.elapsedTimeSeconds}`);
  if (new Set(keys).size !== keys.length) {
    throw fieldError("rules", "must be unique by target, status and elapsed_time_seconds");
  }
  const repeat = draft.repeatEverySeconds;
  if (repeat !== null) {
    if (!isIntIn(repeat, 60, DAY_SECONDS))
      throw fieldError("repeat_every_seconds", "must be null or an integer from 60 to 86400");
    if (draft.rules.some((r) => r.elapsedTimeSeconds >= repeat)) {
      throw fieldError("repeat_every_seconds", "must be greater than every rule's elapsed_time_seconds");
    }
  }
  if (!isIntIn(draft.maxRepeats, 0, 9)) throw fieldError("max_repeats", "must be an integer from 0 to 9");
  return draft;
}
