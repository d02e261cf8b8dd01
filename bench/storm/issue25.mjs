// bench/storm.mjs helper: the verdicts of issue 25's throughput targets (items 1–3), from ratios
// paired by round. Each round runs every target one after the other within a minute or so, so a
// round's Tocsin figure is divided by the same round's baseline or Alertmanager figure and the
// verdict is the median of those ratios. Alertmanager's own rate moved 41,000–82,000 alerts/s
// between rounds minutes apart on one machine (bench/notes/2026-11-30-*); a ratio of medians
// mixes a fast minute of one with a slow minute of the other, a paired ratio does not.
import { spread } from "../lib/stats.mjs";
import { print } from "./report.mjs";

const pct = (v) => `${(100 * v).toFixed(1)} %`;

/** Per-round ratios `num(round i of t) / den(round i of ref)`, the rounds where both have a figure. */
function pairedRatios(numRounds, denRounds, num, den) {
  const out = [];
  for (let i = 0; i < Math.min(numRounds.length, denRounds.length); i++) {
    const a = num(numRounds[i]);
    const b = den(denRounds[i]);
    if (typeof a === "number" && typeof b === "number" && Number.isFinite(a) && b > 0) out.push(a / b);
  }
  return out;
}

/**
 * One row per issue 25 target that the run measured: `{ item, variant, what, ratios, median, min,
 * max, target, met }` (`met` null when no round gave a figure).
 */
export function issue25Rows(targets, rounds) {
  const [base, am, ...toc] = targets;
  const r = (t, kind) => rounds[t.name]?.[kind] ?? [];
  const rows = [];
  const add = (item, t, what, ratios, target) => {
    const s = spread(ratios);
    rows.push({
      item,
      variant: t.variant,
      what,
      ratios,
      ...s,
      target,
      met: s.median === null ? null : s.median >= target,
    });
  };
  for (const t of toc) {
    if (t.variant === "silenced") continue; // issue 24's comparison (storm/silences.mjs)
    const singles = r(t, "single");
    const batches = r(t, "batch");
    if (t.variant === "redis" && singles.length) {
      // Item 1: processing keeps up with single posts at the max accept rate. Processed/s counts
      // until the queue is empty, so 0.95 after a 10 s run means drained within about half a second.
      const kept = singles.map((x) => (x.rps > 0 && typeof x.processedPerSec === "number" ? x.processedPerSec / x.rps : NaN));
      add("1 single posts processed / accepted", t, "processed/s ÷ accepted/s", kept.filter(Number.isFinite), 0.95);
    }
    if (batches.length) {
      const ratios = pairedRatios(
        batches,
        r(am, "batch"),
        (x) => x.processedPerSec,
        (x) => x.alertsPerSec,
      );
      const item =
        t.variant === "local" ? "2 batches processed" : t.variant === "redis" ? "1 batches processed" : "batches processed";
      add(item, t, "processed alerts/s ÷ Alertmanager's", ratios, 0.25);
    }
    if (t.variant === "local" && singles.length) {
      const ratios = pairedRatios(
        singles,
        r(base, "single"),
        (x) => x.rps,
        (x) => x.rps,
      );
      add("3 single posts", t, "posts/s ÷ bare node:http's", ratios, 0.25);
    }
  }
  return rows;
}

/** Prints the rows of `issue25Rows`. */
export function issue25Table(rows) {
  if (!rows.length) return;
  console.log("\nIssue 25 targets (ratios paired by round: median [min–max])");
  const table = [["target", "variant", "ratio", "measured", "target", "verdict"]];
  for (const x of rows)
    table.push([
      x.item,
      x.variant,
      x.what,
      x.median === null ? "—" : `${pct(x.median)} [${pct(x.min)}–${pct(x.max)}]`,
      `≥ ${pct(x.target)}`,
      x.met === null ? "—" : x.met ? "met" : "MISSED",
    ]);
  print(table);
}
