import { useEffect } from "react";
import { useCurrentProject } from "../projects/context";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Loading } from "../ui/Loading";
import { useOverview } from "./api";
import { NoisiestTables } from "./NoisiestTables";
import { OpenAlertsTable } from "./OpenAlertsTable";
import { ResponseTimesList } from "./ResponseTimesList";
import { preloadChart } from "./StartedChart";
import { StartedFigure } from "./StartedFigure";

/** The project's alerts at a glance (Developer+): one API call. */
export function ProjectAlertsOverview() {
  const { fullPath } = useCurrentProject();
  const overview = useOverview(fullPath);
  // The chart code loads while the numbers do.
  useEffect(() => void preloadChart(), []);
  if (overview.isPending) return <Loading label="Loading the alerts overview" />;
  if (overview.isError) return <ErrorMessage error={overview.error} />;
  const o = overview.data;
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
