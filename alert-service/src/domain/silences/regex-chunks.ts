import type { CompiledSilence } from "./matching.js";
import { compileAnchored } from "./regex.js";

/**
 * Silences filed under one positive regular-expression matcher (`name=~pattern`), in chunks whose
 * patterns are joined into one RE2 alternation: an alert value that the alternation does not
 * match cannot satisfy any silence of the chunk, so the chunk is skipped with one test instead of
 * one per silence (measured: one alternation of 200 patterns ≈ 1.6 µs against 200 × 0.26 µs).
 */
export interface RegexChunk {
  name: string;
  /** True when some pattern of the chunk may match the value (always true if the join failed). */
  mayMatch(value: string): boolean;
  silences: CompiledSilence[];
}

/** How many patterns share one alternation: a hit then costs at most this many full checks. */
const CHUNK_SIZE = 32;

/** RE2's operators, and the start of escapes, classes, groups and flags. */
const OPERATORS = new Set([..."\\.^$|?*+()[]{}"]);

/**
 * The literal text that every (anchored) match of `pattern` starts with, "" when none is certain:
 * the characters before its first operator, less the last one when that operator may repeat it
 * zero times (`?`, `*`, `{`); none at all when the pattern has an alternation anywhere.
 */
export function literalPrefix(pattern: string): string {
  if (pattern.includes("|")) return "";
  let end = 0;
  while (end < pattern.length && !OPERATORS.has(pattern[end] as string)) end++;
  const next = pattern[end];
  if (next !== "?" && next !== "*" && next !== "{") return pattern.slice(0, end);
  // The repeated character may be one code point of two code units (a surrogate pair).
  const last = end > 1 && /[\uDC00-\uDFFF]/.test(pattern[end - 1] as string) ? 2 : 1;
  return pattern.slice(0, Math.max(0, end - last));
}

/**
 * The chunk's test: when every pattern has a literal prefix, a value that starts with none of
 * them is refused by string comparisons alone, before the RE2 alternation runs (most values of
 * a storm: the alternation costs ≈ 1.6 µs per chunk in re2js, a comparison nanoseconds).
 */
function chunkTest(patterns: string[], joined: ((value: string) => boolean) | undefined): (value: string) => boolean {
  const test = joined ?? (() => true);
  const prefixes = patterns.map(literalPrefix);
  if (prefixes.some((p) => p === "")) return test;
  return (value) => prefixes.some((p) => value.startsWith(p)) && test(value);
}

export function buildRegexChunks(entries: Array<{ name: string; pattern: string; silence: CompiledSilence }>): RegexChunk[] {
  const byName = new Map<string, typeof entries>();
  for (const e of entries) byName.set(e.name, [...(byName.get(e.name) ?? []), e]);
  const chunks: RegexChunk[] = [];
  for (const [name, list] of byName)
    for (let i = 0; i < list.length; i += CHUNK_SIZE) {
      const part = list.slice(i, i + CHUNK_SIZE);
      // Each pattern is valid RE2 on its own, so its non-capturing group is; `matches` anchors the whole.
      const joined = compileAnchored(part.map((e) => `(?:${e.pattern})`).join("|"));
      const patterns = part.map((e) => e.pattern);
      chunks.push({ name, mayMatch: chunkTest(patterns, joined), silences: part.map((e) => e.silence) });
    }
  return chunks;
}
