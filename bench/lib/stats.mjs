// The bench scripts' one median: of the finite numbers given, the middle one, or the mean of the
// two middle ones for an even count (null when there are none).

/** The median of the finite numbers of `xs` (null when there are none). */
export function median(xs) {
  const v = xs.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return null;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** `{ median, min, max }` of the finite numbers of `xs` (null when there are none). */
export function spread(xs) {
  const v = xs.filter((x) => typeof x === "number" && Number.isFinite(x));
  if (!v.length) return { median: null, min: null, max: null };
  return { median: median(v), min: Math.min(...v), max: Math.max(...v) };
}
