import type { Matcher, Silence } from "./model.js";
import { compileAnchored } from "./regex.js";
import { type SilenceSubject, valuesOf } from "./subject.js";

/** A matcher ready to test values: a positive test, negated by `isEqual: false`. */
export interface CompiledMatcher {
  matcher: Matcher;
  test(value: string): boolean;
}

/** A silence with its matchers compiled once (the index keeps these). */
export interface CompiledSilence {
  silence: Silence;
  matchers: CompiledMatcher[];
}

/** Compiles a matcher; undefined for a regular expression that is not valid RE2. */
export function compileMatcher(matcher: Matcher): CompiledMatcher | undefined {
  if (!matcher.isRegex) return { matcher, test: (value) => value === matcher.value };
  const test = compileAnchored(matcher.value);
  return test ? { matcher, test } : undefined;
}

/** Compiles a stored (so validated) silence; a matcher that no longer compiles matches nothing. */
export function compileSilence(silence: Silence): CompiledSilence {
  return {
    silence,
    matchers: silence.matchers.map((m) => compileMatcher(m) ?? { matcher: { ...m, isEqual: true }, test: () => false }),
  };
}

/**
 * One matcher against a subject. A positive matcher (`=`, `=~`) holds when any of the subject's
 * values under its name matches (any host, the label or the field); a negative one (`!=`, `!~`)
 * when none does. A missing name reads as the empty string.
 */
function matcherHolds(m: CompiledMatcher, subject: SilenceSubject): boolean {
  const any = valuesOf(subject, m.matcher.name).some((v) => m.test(v));
  return m.matcher.isEqual ? any : !any;
}

/** A silence covers a subject when all its matchers hold (time is the caller's concern). */
export function silenceMatches(compiled: CompiledSilence, subject: SilenceSubject): boolean {
  return compiled.matchers.every((m) => matcherHolds(m, subject));
}
