import { useMemo, useState } from "react";
import { ACCESS } from "../api/types";
import { useCurrentProject } from "../projects/context";
import { ErrorMessage } from "../ui/ErrorMessage";
import { Loading } from "../ui/Loading";
import { useDocumentTitle } from "../ui/title";
import { useSchedules } from "./api";
import { ScheduleForm } from "./OncallForms";
import { ScheduleSection } from "./ScheduleSection";
import { midnightIn, viewerZone } from "./zone";

const DAYS = 14;

/** `/<full_path>/-/oncall_schedules` (PRODUCT.md section 11): schedules, rotations, overrides, 14 days of shifts. */
export default function OncallSchedulesPage() {
  const { project, fullPath, access } = useCurrentProject();
  useDocumentTitle(`On-call schedules · ${project.name}`);
  const schedules = useSchedules(fullPath);
  const [inViewerZone, setInViewerZone] = useState(false);
  const now = useMemo(() => Date.now(), []);
  const mine = viewerZone();
  const canWrite = access >= ACCESS.maintainer;
  return (
    <>
      <h1>On-call schedules</h1>
      <fieldset className="field inline">
        <legend>Show times in</legend>
        <label>
          <input type="radio" name="zone" checked={!inViewerZone} onChange={() => setInViewerZone(false)} /> each schedule's time
          zone
        </label>
        <label>
          <input type="radio" name="zone" checked={inViewerZone} onChange={() => setInViewerZone(true)} /> your time zone ({mine})
        </label>
      </fieldset>
      {schedules.isPending ? (
        <Loading label="Loading schedules" />
      ) : schedules.isError ? (
        <ErrorMessage error={schedules.error} />
      ) : (
        <>
          {schedules.data.length === 0 && <p className="empty">No on-call schedules yet.</p>}
          {schedules.data.map((s) => {
            const zone = inViewerZone ? mine : s.timezone;
            const from = midnightIn(now, zone);
            return (
              <ScheduleSection
                key={`${s.iid}-${zone}`}
                fullPath={fullPath}
                schedule={s}
                zone={zone}
                canWrite={canWrite}
                from={from}
                to={from + DAYS * 86_400_000}
                now={now}
              />
            );
          })}
        </>
      )}
      {canWrite && <ScheduleForm fullPath={fullPath} />}
    </>
  );
}
