/**
 * The deepest nesting of objects/arrays in JSON text, found by scanning characters (never by
 * recursion, so hostile input cannot exhaust the stack). Stops early, returning a value above
 * `limit`, once `limit` is passed. The webhook and the sample payloads both bound depth with it.
 * A string is skipped to its closing quote with `indexOf` (most of a payload's characters are
 * in strings: keys and values), not looked at one character at a time.
 */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(text, i);
      if (i < 0) return max;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) max = depth;
      if (max > limit) return max;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** The index of the quote that ends the string opened at `open`, -1 when none does. */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at >= 0; at = text.indexOf('"', at + 1)) {
    // Escaped when an odd number of backslashes comes right before it.
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return at;
  }
  return -1;
}
