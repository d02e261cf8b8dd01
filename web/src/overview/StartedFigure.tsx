import { useId } from "react";
import { SEVERITIES } from "../alerts/types";
import { capitalize } from "../ui/format";
import { bucketLabel, countsText, total } from "./format";
import { StartedChart } from "./StartedChart";
import type { StartedBucket } from "./types";

/** The chart's text: totals by severity and the busiest bucket. */
function summary(buckets: StartedBucket[], unit: "hour" | "day", span: string): string {
  const sums = Object.fromEntries(
    SEVERITIES.map((s) => [s, buckets.reduce((n, b) => n + b.counts[s], 0)]),
  ) as StartedBucket["counts"];
  const all = total(sums);
  if (all === 0) return `No alerts started in the ${span}.`;
  const busiest = buckets.reduce((a, b) => (total(b.counts) > total(a.counts) ? b : a));
  const when =
    unit === "hour" ? `in the hour from ${bucketLabel(busiest.start, unit)} UTC` : `on ${bucketLabel(busiest.start, unit)}`;
  return `${all} alerts started in the ${span} (${countsText(sums)}); the most, ${total(busiest.counts)}, ${when}.`;
}

/**
 * Alerts started per hour or per day, stacked by severity: the chart, its legend, a text summary
 * (the figure's accessible description) and the numbers as a table.
 */
export function StartedFigure({
  title,
  buckets,
  unit,
  span,
}: {
  title: string;
  buckets: StartedBucket[];
  unit: "hour" | "day";
  span: string;
}) {
  const id = useId();
  const text = summary(buckets, unit, span);
  return (
    <figure className="started" aria-labelledby={`${id}-title`} aria-describedby={`${id}-summary`}>
      <figcaption>
        <h3 id={`${id}-title`}>{title}</h3>
        <p id={`${id}-summary`} className="muted">
          {text}
        </p>
      </figcaption>
      <ul className="legend" aria-label="Severities, bottom to top">
        {SEVERITIES.map((s) => (
          <li key={s}>
            <span className={`swatch sev-${s}`} />
            {capitalize(s)}
          </li>
        ))}
      </ul>
      <StartedChart buckets={buckets} unit={unit} />
      <details>
        <summary>Table view: {title.toLowerCase()}</summary>
        {/* Scrolls sideways on narrow screens: focusable, so that the keyboard can scroll it. */}
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus (WCAG 2.1.1) */}
        <section className="table-scroll" tabIndex={0} aria-label={`${title}, table`}>
          <table>
            <caption className="visually-hidden">{title} (UTC)</caption>
            <thead>
              <tr>
                <th scope="col">{unit === "hour" ? "Hour (UTC)" : "Day (UTC)"}</th>
                {SEVERITIES.map((s) => (
                  <th scope="col" key={s} className="num">
                    {capitalize(s)}
                  </th>
                ))}
                <th scope="col" className="num">
                  Total
                </th>
              </tr>
            </thead>
            <tbody>
              {buckets.map((b) => (
                <tr key={b.start}>
                  <th scope="row">
                    <time dateTime={b.start}>{bucketLabel(b.start, unit)}</time>
                  </th>
                  {SEVERITIES.map((s) => (
                    <td key={s} className="num">
                      {b.counts[s]}
                    </td>
                  ))}
                  <td className="num">{total(b.counts)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </details>
    </figure>
  );
}
