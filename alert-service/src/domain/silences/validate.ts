import { invalidArgument } from "@tocsin/core";
import { compileMatcher } from "./matching.js";
import { MAX_COMMENT_LENGTH, MAX_CREATED_BY_LENGTH, MAX_MATCHER_TEXT, MAX_MATCHERS, type Matcher } from "./model.js";

/** A silence as a client posts it (Alertmanager's PostableSilence). */
export interface SilenceInput {
  /** Set to update (Alertmanager's rules, see use-cases.ts). */
  id?: string;
  matchers: Matcher[];
  /** Defaults to now. */
  startsAt?: Date;
  endsAt?: Date;
  createdBy: string;
  comment: string;
}

const invalid = (message: string) => invalidArgument("SILENCE_INVALID", message);

function checkMatcher(m: Matcher, i: number): void {
  const prefix = `invalid label matcher ${i}`;
  if (!m.name) throw invalid(`${prefix}: invalid label name ""`);
  if (m.name.length > MAX_MATCHER_TEXT || m.value.length > MAX_MATCHER_TEXT)
    throw invalid(`${prefix}: name and value are limited to ${MAX_MATCHER_TEXT} characters`);
  if (m.isRegex && !compileMatcher(m)) throw invalid(`${prefix}: invalid regular expression "${m.value}"`);
}

/** Alertmanager's `matchesEmpty`: an `=` or `=~` matcher that the empty string satisfies. */
function matchesEmpty(m: Matcher): boolean {
  if (!m.isEqual) return false;
  return compileMatcher(m)?.test("") ?? false;
}

/**
 * Alertmanager's `validateSilence` plus the API's time checks and Tocsin's limits (section 13:
 * ≤ 50 matchers, names and values ≤ 1,000 characters). Returns the start time to use (now when
 * absent). Every refusal is INVALID_ARGUMENT `SILENCE_INVALID` with Alertmanager's wording.
 */
export function validateSilence(input: SilenceInput, now: Date): { startsAt: Date; endsAt: Date } {
  if (input.matchers.length === 0) throw invalid("invalid silence: at least one matcher required");
  if (input.matchers.length > MAX_MATCHERS) throw invalid(`invalid silence: at most ${MAX_MATCHERS} matchers`);
  input.matchers.forEach(checkMatcher);
  if (input.matchers.every(matchesEmpty)) throw invalid("invalid silence: at least one matcher must not match the empty string");
  if (input.comment.length > MAX_COMMENT_LENGTH) throw invalid(`comment is limited to ${MAX_COMMENT_LENGTH} characters`);
  if (input.createdBy.length > MAX_CREATED_BY_LENGTH)
    throw invalid(`createdBy is limited to ${MAX_CREATED_BY_LENGTH} characters`);
  if (!input.endsAt) throw invalid("invalid silence: invalid zero end timestamp");
  const startsAt = input.startsAt ?? now;
  if (startsAt.getTime() >= input.endsAt.getTime()) throw invalid("Failed to create silence: start time must be before end time");
  if (input.endsAt.getTime() < now.getTime()) throw invalid("Failed to create silence: end time can't be in the past");
  return { startsAt, endsAt: input.endsAt };
}
