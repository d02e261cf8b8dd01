import { RE2JS } from "re2js";

/**
 * A compiled, anchored RE2 expression (section 13: RE2 syntax, anchored, no backtracking), so a
 * pathological pattern such as `(a+)+$` matches in time linear in the input. Undefined when the
 * pattern is not valid RE2.
 */
export function compileAnchored(pattern: string): ((value: string) => boolean) | undefined {
  try {
    const re = RE2JS.compile(pattern);
    return (value) => re.matches(value);
  } catch {
    return undefined;
  }
}
