import { NoisiestTables } from "./NoisiestTables";
import { OpenAlertsTable } from "./OpenAlertsTable";
import { ResponseTimesList } from "./ResponseTimesList";
import { StartedFigure } from "./StartedFigure";
import type { Overview } from "./types";

/** The project's alerts at a glance (Developer+), from the page's one API call. */
export function ProjectAlertsOverview({ fullPath, overview: o }: { fullPath: string; overview: Overview }) {
  return (
    <div className="alerts-overview">
      <section aria-labelledby="open-alerts">
        <h2 id="open-alerts">Open alerts</h2>
        <OpenAlertsTable fullPath={fullPath} open={o.open_alerts} />
      </section>
      <section aria-labelledby="alerts-started">
        <h2 id="alerts-started">Alerts started</h2>
        <div className="overview-grid">
          <StartedFigure title="Last 24 hours, per hour" buckets={o.alerts_started.hourly} unit="hour" span="last 24 hours" />
          <StartedFigure title="Last 30 days, per day" buckets={o.alerts_started.daily} unit="day" span="last 30 days" />
        </div>
      </section>
      <section aria-labelledby="noisiest">
        <h2 id="noisiest">Noisiest in the last 7 days</h2>
        <NoisiestTables fullPath={fullPath} overview={o} />
      </section>
      <section aria-labelledby="response-times">
        <h2 id="response-times">Response times</h2>
        <ResponseTimesList times={o.response_times} />
      </section>
    </div>
  );
}
