import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { SEVERITIES } from "../alerts/types";
import { bucketLabel } from "./format";
import type { StartedBucket } from "./types";

const HEIGHT = 220;

/** The page's colours (light or dark), read from the CSS variables of styles.css. */
function palette() {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string) => css.getPropertyValue(name).trim();
  return {
    text: v("--muted"),
    grid: v("--border"),
    severity: Object.fromEntries(SEVERITIES.map((s) => [s, v(`--sev-${s}`)])) as Record<string, string>,
  };
}

/**
 * Draws alerts started per bucket into `el`, stacked by severity (critical at the bottom), with
 * uPlot on a canvas; returns what removes it. uPlot does not stack: each severity's bar reaches
 * the sum of the severities below it and itself, and the tallest is drawn first so that each
 * shorter one stays visible in front. Its own chunk (uPlot is 24 kB gzipped).
 */
export function drawStartedChart(el: HTMLElement, buckets: StartedBucket[], unit: "hour" | "day"): () => void {
  const colors = palette();
  const xs = buckets.map((b) => Date.parse(b.start) / 1000);
  const step = unit === "hour" ? 3600 : 86_400;
  const stacked = SEVERITIES.map((_, i) => buckets.map((b) => SEVERITIES.slice(0, i + 1).reduce((n, s) => n + b.counts[s], 0)));
  const order = [...SEVERITIES.keys()].reverse();
  const bars = uPlot.paths.bars?.({ size: [0.75, 48] });
  const plot = new uPlot(
    {
      width: el.clientWidth || 600,
      height: HEIGHT,
      legend: { show: false },
      cursor: { show: false },
      scales: {
        x: { time: false, range: () => [(xs[0] ?? 0) - step / 2, (xs[xs.length - 1] ?? 0) + step / 2] },
        y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] },
      },
      axes: [
        {
          stroke: colors.text,
          grid: { show: false },
          ticks: { stroke: colors.grid },
          values: (_u, splits) => splits.map((s) => bucketLabel(new Date(s * 1000).toISOString(), unit)),
          incrs: [step, step * 2, step * 3, step * 4, step * 6, step * 7],
        },
        { stroke: colors.text, grid: { stroke: colors.grid, width: 1 }, ticks: { stroke: colors.grid } },
      ],
      series: [
        {},
        ...order.map((i) => {
          const severity = SEVERITIES[i] ?? "unknown";
          const color = colors.severity[severity] ?? colors.text;
          return { label: severity, fill: color, stroke: color, width: 0, paths: bars, points: { show: false } };
        }),
      ],
    },
    [xs, ...order.map((i) => stacked[i] ?? [])],
    el,
  );
  const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth || 600, height: HEIGHT }));
  resize.observe(el);
  return () => {
    resize.disconnect();
    plot.destroy();
  };
}
