import { useEffect, useRef, useState } from "react";
import type { StartedBucket } from "./types";

let drawModule: Promise<typeof import("./started-chart-draw")> | undefined;
/** Starts loading the chart code (uPlot, its own chunk) once, e.g. while the overview's data loads. */
export const preloadChart = () => {
  drawModule ??= import("./started-chart-draw");
  return drawModule;
};

/** Re-renders when the colour scheme changes (the chart is drawn on a canvas with fixed colours). */
function useColorScheme(): string {
  const [scheme, setScheme] = useState(() => (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
  useEffect(() => {
    const media = matchMedia("(prefers-color-scheme: dark)");
    const on = () => setScheme(media.matches ? "dark" : "light");
    media.addEventListener("change", on);
    return () => media.removeEventListener("change", on);
  }, []);
  return scheme;
}

interface Props {
  buckets: StartedBucket[];
  unit: "hour" | "day";
}

/**
 * Alerts started per bucket, stacked by severity. Decorative for assistive technology: the figure
 * around it has the summary and the table. The chart code is imported in an effect, not through
 * React.lazy: a suspended boundary is revealed up to 300 ms late (React's fallback throttling).
 */
export function StartedChart(props: Props) {
  // A new chart, with the new colours, when the scheme changes.
  return <Chart key={useColorScheme()} {...props} />;
}

function Chart({ buckets, unit }: Props) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let remove: (() => void) | undefined;
    let gone = false;
    void preloadChart().then((m) => {
      if (!gone) remove = m.drawStartedChart(el, buckets, unit);
    });
    return () => {
      gone = true;
      remove?.();
    };
  }, [buckets, unit]);
  return <div ref={box} className="started-chart" aria-hidden="true" />;
}
